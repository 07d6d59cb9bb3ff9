import { randomUUID } from "node:crypto";
import { isIP } from "node:net";
import path from "node:path";
import type { Database } from "~/db/database.server";
import { describeBrowser, USER_AGENT_MAX_CHARS } from "~/lib/browser-name";
import { normaliseClientAddress, type AddressKeyer } from "~/lib/client-address.server";
import type { Clock } from "~/lib/clock";
import { countRefusal, flushRefusals } from "./refusal-tally.server";
import {
  ACTIVITY_KINDS,
  describeActivity,
  isSecurityKind,
  SECURITY_KINDS,
  SIGN_IN_KINDS,
  USUAL_PLACE_DAYS,
  type ActivityDetail,
  type ActivityEntry,
  type ActivityKind,
  type ActivityOutcome,
  type ActivityPage,
} from "./activity-kinds";

/**
 * The security log (decision 0054). Addresses are kept only as a coarse network and a keyed hash; refusals
 * (429s) fold into one record per kind per hour (refusal-tally.server.ts), so a flood can neither fill the log
 * nor cost a write per attempt; the log is pruned to ACTIVITY_LIMITS at every insert and hourly.
 */
const ACTIVITY_LIMITS = { records: 10_000, maxAgeMs: 365 * 24 * 60 * 60_000 } as const;
const ACTIVITY_PAGE_SIZE = 50;

/** addressKey may be left out only by callers that never pass a client address (a restore). */
export type ActivityServices = { db: Database; clock: Clock; addressKey?: AddressKeyer };
export type ActivityClient = { userAgent?: string | null; address?: string | null };
export type ActivityEvent = {
  kind: ActivityKind;
  outcome: ActivityOutcome;
  detail?: ActivityDetail;
  client?: ActivityClient;
};

/** IPv4 → its /24, IPv6 → its /48 (an IPv4-mapped address as IPv4); null for anything else. */
export function networkPrefix(address: string | null | undefined): string | null {
  if (!address) return null;
  const normalised = normaliseClientAddress(address);
  if (isIP(normalised) === 4) return `${normalised.split(".").slice(0, 3).join(".")}.0/24`;
  // An IPv6 address comes back as its /56 ("2001:db8:1:200::/56"): keep three groups.
  if (normalised.endsWith("::/56")) return `${normalised.split(":").slice(0, 3).join(":")}::/48`;
  return null;
}

const MAX_DETAIL_TEXT = 100;

/** Bounded text only: a long caption or name never makes a long record. */
function boundedDetail(detail: ActivityDetail = {}): string {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(detail)) {
    if (typeof value === "string") out[key] = value.slice(0, MAX_DETAIL_TEXT);
    else if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  }
  return JSON.stringify(out);
}

const hourOf = (at: Date) => `${at.toISOString().slice(0, 13)}:00Z`;

export async function recordActivity(services: ActivityServices, event: ActivityEvent): Promise<void> {
  const { db } = services;
  const now = services.clock.now();
  const address = event.client?.address;
  if (address && !services.addressKey) throw new Error("recordActivity needs addressKey to record a client address");
  const row = {
    id: randomUUID(),
    occurred_at: now.toISOString(),
    kind: event.kind,
    outcome: event.outcome,
    detail: boundedDetail(event.detail),
    user_agent: event.client?.userAgent ? event.client.userAgent.slice(0, USER_AGENT_MAX_CHARS) : null,
    network: networkPrefix(address),
    address_hash: address && services.addressKey ? services.addressKey(address) : null,
    count: 1,
    fold_key: event.outcome === "refused" ? `${event.kind}@${hourOf(now)}` : null,
  };
  if (row.fold_key) {
    // Only a new record can take the log over its limit: a flood's later attempts skip the pruning.
    if (!(await countRefusal(db, { ...row, fold_key: row.fold_key }))) return;
  } else {
    await db.insertInto("activity_log").values(row).execute();
  }
  await pruneActivity(services);
}

/** A restore notes itself in the restored database, inside the restore (no browser: it runs on the server). */
export function recordRestoreRun(services: { db: Database; clock: Clock }, archiveFile: string): Promise<void> {
  return recordActivity(services, {
    kind: "backup.restored",
    outcome: "success",
    detail: { file: path.basename(archiveFile) },
  });
}

/** recordActivity for request handlers: a failure to record is logged, never thrown at the owner. */
export async function recordActivitySafely(
  services: ActivityServices & { logger: { error(fields: object, message: string): void } },
  event: ActivityEvent,
): Promise<void> {
  await recordActivity(services, event).catch((error: unknown) =>
    services.logger.error({ err: error, kind: event.kind }, "could not record the activity"),
  );
}

/** Deletes records older than a year, then all but the newest 10,000. Returns how many went. */
export async function pruneActivity(services: { db: Database; clock: Clock }): Promise<number> {
  const { db } = services;
  const cutoff = new Date(services.clock.now().getTime() - ACTIVITY_LIMITS.maxAgeMs).toISOString();
  const old = await db.deleteFrom("activity_log").where("occurred_at", "<", cutoff).executeTakeFirst();
  let removed = Number(old.numDeletedRows);
  // The oldest record that may stay; everything ordered after it goes.
  const last = await db
    .selectFrom("activity_log")
    .select(["occurred_at", "id"])
    .orderBy("occurred_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .offset(ACTIVITY_LIMITS.records - 1)
    .executeTakeFirst();
  if (last) {
    const extra = await db
      .deleteFrom("activity_log")
      .where((eb) =>
        eb.or([
          eb("occurred_at", "<", last.occurred_at),
          eb.and([eb("occurred_at", "=", last.occurred_at), eb("id", "<", last.id)]),
        ]),
      )
      .executeTakeFirst();
    removed += Number(extra.numDeletedRows);
  }
  return removed;
}

const KNOWN_KINDS = new Set<string>(Object.keys(ACTIVITY_KINDS));

/** A page of the log, newest first; `securityOnly` keeps SECURITY_KINDS. */
export async function readActivity(
  services: { db: Database },
  options: { page: number; securityOnly: boolean },
): Promise<ActivityPage> {
  // This process's tallied refusals first, so the counts shown are up to date.
  await flushRefusals(services.db);
  let query = services.db.selectFrom("activity_log");
  if (options.securityOnly) query = query.where("kind", "in", [...SECURITY_KINDS]);
  const { total } = await query.select((eb) => eb.fn.countAll().as("total")).executeTakeFirstOrThrow();
  const rows = await query
    .selectAll()
    .orderBy("occurred_at", "desc")
    .orderBy("id", "desc")
    .limit(ACTIVITY_PAGE_SIZE)
    .offset((options.page - 1) * ACTIVITY_PAGE_SIZE)
    .execute();
  const places = await placesOf(services.db, rows);
  const entries: ActivityEntry[] = rows
    // A kind from newer code (after a downgrade) is left out rather than misdescribed.
    .filter((row) => KNOWN_KINDS.has(row.kind))
    .map((row) => {
      const kind = row.kind as ActivityKind;
      const outcome = row.outcome as ActivityOutcome;
      const count = Number(row.count);
      return {
        id: row.id,
        at: row.occurred_at,
        kind,
        outcome,
        summary: describeActivity(kind, outcome, JSON.parse(row.detail) as ActivityDetail, count),
        browser: row.user_agent === null ? null : (describeBrowser(row.user_agent) ?? "an unknown browser"),
        network: row.network,
        place: places.get(row.id) ?? null,
        count,
        security: isSecurityKind(kind),
      };
    });
  return { entries, page: options.page, pageSize: ACTIVITY_PAGE_SIZE, total: Number(total) };
}

const USUAL_PLACE_MS = USUAL_PLACE_DAYS * 24 * 60 * 60_000;

/** "usual" or "new" per record with a network: one query for the page, bounded by the log's own size. */
async function placesOf(
  db: Database,
  rows: { id: string; occurred_at: string; network: string | null }[],
): Promise<Map<string, "new" | "usual">> {
  const placed = rows.filter((row): row is typeof row & { network: string } => row.network !== null);
  const places = new Map<string, "new" | "usual">();
  if (placed.length === 0) return places;
  const times = placed.map((row) => row.occurred_at).sort();
  const from = new Date(new Date(times[0]!).getTime() - USUAL_PLACE_MS).toISOString();
  const signIns = await db
    .selectFrom("activity_log")
    .select(["network", "occurred_at"])
    .where("kind", "in", [...SIGN_IN_KINDS])
    .where("outcome", "=", "success")
    .where("network", "in", [...new Set(placed.map((row) => row.network))])
    .where("occurred_at", ">=", from)
    .where("occurred_at", "<", times.at(-1)!)
    .execute();
  for (const row of placed) {
    const since = new Date(new Date(row.occurred_at).getTime() - USUAL_PLACE_MS).toISOString();
    const usual = signIns.some(
      (signIn) => signIn.network === row.network && signIn.occurred_at >= since && signIn.occurred_at < row.occurred_at,
    );
    places.set(row.id, usual ? "usual" : "new");
  }
  return places;
}
