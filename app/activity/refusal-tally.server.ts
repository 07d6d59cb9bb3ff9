import type { Insertable } from "kysely";
import type { Database } from "~/db/database.server";
import type { ActivityLogTable } from "~/db/schema";
import { every } from "~/lib/every";
import type { Logger } from "~/lib/logger.server";

/**
 * A refused attempt's record is written once; the refusals after it are tallied in memory and added in one
 * write every 10 s, before the log is read and at shutdown, so a flood costs no write per refusal. The tally
 * holds one entry per record being counted, so its memory is bounded.
 */
/** A folded record as first written (its count is added separately). */
export type RefusalRow = Omit<Insertable<ActivityLogTable>, "count"> & { fold_key: string };

type Pending = { row: RefusalRow; uncounted: number };

/** Per database, so several sites in one process (the tests) keep their own counts. */
const tallies = new WeakMap<Database, Map<string, Pending>>();

function tallyOf(db: Database): Map<string, Pending> {
  let tally = tallies.get(db);
  if (!tally) tallies.set(db, (tally = new Map()));
  return tally;
}

/** Adds `count` refusals to the record, creating it when needed; the latest attempt's time, browser and network win. */
async function addToRecord(db: Database, row: RefusalRow, count: number): Promise<void> {
  await db
    .insertInto("activity_log")
    .values({ ...row, count })
    .onConflict((oc) =>
      oc.column("fold_key").doUpdateSet((eb) => ({
        count: eb("activity_log.count", "+", eb.ref("excluded.count")),
        occurred_at: eb.ref("excluded.occurred_at"),
        user_agent: eb.ref("excluded.user_agent"),
        network: eb.ref("excluded.network"),
        address_hash: eb.ref("excluded.address_hash"),
      })),
    )
    .execute();
}

/** Counts one refusal. Returns true when it wrote a record (the caller then keeps the log within its limits). */
export async function countRefusal(db: Database, row: RefusalRow): Promise<boolean> {
  const tally = tallyOf(db);
  const pending = tally.get(row.fold_key);
  if (pending) {
    pending.uncounted += 1;
    pending.row = { ...row, id: pending.row.id };
    return false;
  }
  // Set before the write, so refusals arriving meanwhile are tallied, not written too.
  tally.set(row.fold_key, { row, uncounted: 0 });
  await addToRecord(db, row, 1);
  return true;
}

/** Writes the refusals tallied in this process; the next refusal of each record is written at once again. */
export async function flushRefusals(db: Database): Promise<void> {
  const tally = tallyOf(db);
  const pending = [...tally.values()];
  tally.clear();
  for (const { row, uncounted } of pending) if (uncounted > 0) await addToRecord(db, row, uncounted);
}

/** Flushes every 10 seconds; `stop` flushes one last time. */
export function refusalTallyFlush(
  services: { db: Database; logger: Logger },
  intervalMs = 10_000,
): { start(): Promise<void>; stop(): Promise<void> } {
  const onError = (error: unknown) => services.logger.warn({ err: error }, "could not save the refused sign-in counts");
  const task = every(intervalMs, () => flushRefusals(services.db), { onError });
  return {
    start: task.start,
    async stop() {
      await task.stop();
      await flushRefusals(services.db).catch(onError);
    },
  };
}

/** The same, started at once. */
export function startRefusalTallyFlush(
  services: { db: Database; logger: Logger },
  intervalMs = 10_000,
): { stop(): Promise<void> } {
  const flush = refusalTallyFlush(services, intervalMs);
  void flush.start();
  return flush;
}
