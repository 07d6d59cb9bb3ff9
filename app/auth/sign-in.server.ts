import type { Database } from "~/db/database.server";
import type { AddressKeyer } from "~/lib/client-address.server";
import type { Clock } from "~/lib/clock";
import { clearRateLimits, createRateLimiter, type RateLimiter } from "~/db/rate-limit.server";
import { verifyCredentials, type VerificationMeter } from "./auth.server";
import { createDeviceCookies, type Device, type DeviceCookies } from "./device-cookie.server";
import type { CurrentUser } from "./login-schema";
import type { SignInReport } from "./security-summary";
import {
  createVerificationGate,
  type VerificationGate,
  type VerificationGateOptions,
} from "./verification-gate.server";

/**
 * The sign-in throttle (decisions 0014 and 0015), counted before argon2 runs: a device-cookie browser has its own
 * limit; any other counts per address and against the one account. A good sign-in clears its counters.
 */
const SIGN_IN_LIMITS = {
  address: { scope: "sign-in:address", limit: 5, windowMs: 15 * 60_000 },
  account: { scope: "sign-in:account", limit: 20, windowMs: 60 * 60_000 },
  device: { scope: "sign-in:device", limit: 5, windowMs: 15 * 60_000 },
  /** Passkey sign-ins have their own limit, apart from the password lock-outs. */
  passkey: { scope: "sign-in:passkey", limit: 10, windowMs: 15 * 60_000 },
  /** Each passkey challenge is a database row: 60 per address per 15 minutes, so a flood cannot fill the table. */
  passkeyChallenges: { scope: "sign-in:passkey-challenges", limit: 60, windowMs: 15 * 60_000 },
} as const;

export const SIGN_IN_SCOPES = Object.values(SIGN_IN_LIMITS).map((rule) => rule.scope);

const ACCOUNT_KEY = "administrator";

/** A waiting sign-in that found the verification queue full is told to retry after this long. */
const BUSY_RETRY_AFTER_SECONDS = 2;

/** Distinct addresses kept for the dashboard's failure report; more are counted together. */
export const FAILURE_ADDRESSES_KEPT = 1_000;
const OTHER_ADDRESSES = "other";

export type SignInGuard = {
  limits: {
    address: RateLimiter;
    account: RateLimiter;
    device: RateLimiter;
    passkey: RateLimiter;
    passkeyChallenges: RateLimiter;
  };
  gate: VerificationGate;
  deviceCookies: DeviceCookies;
  /** argon2 verifications performed by this process. */
  meter: VerificationMeter;
  /** Encrypts the two-step secret and keys recovery-code hashes (app/auth/keys.server.ts). */
  twoStepKey: Buffer;
};

export function createSignInGuard(parts: {
  db: Database;
  clock: Clock;
  addressKey: AddressKeyer;
  deviceCookieKey: Buffer;
  twoStepKey: Buffer;
  gate?: VerificationGateOptions;
}): SignInGuard {
  const { db, clock, addressKey } = parts;
  return {
    limits: {
      address: createRateLimiter(db, clock, { ...SIGN_IN_LIMITS.address, keyOf: addressKey }),
      account: createRateLimiter(db, clock, SIGN_IN_LIMITS.account),
      device: createRateLimiter(db, clock, SIGN_IN_LIMITS.device),
      passkey: createRateLimiter(db, clock, { ...SIGN_IN_LIMITS.passkey, keyOf: addressKey }),
      passkeyChallenges: createRateLimiter(db, clock, { ...SIGN_IN_LIMITS.passkeyChallenges, keyOf: addressKey }),
    },
    twoStepKey: parts.twoStepKey,
    gate: createVerificationGate(parts.gate),
    deviceCookies: createDeviceCookies(parts.deviceCookieKey),
    meter: { verifications: 0 },
  };
}

export type SignInAttempt = {
  username: string;
  password: string;
  /** The client address as Express resolved it. */
  address: string;
  /** The device cookie's value, if the browser sent one. */
  deviceCookie?: string;
};

export type SignInOutcome =
  /** `device` is the valid device cookie the browser showed; null means a browser new to this account. */
  | { status: "signed-in"; user: CurrentUser; device: Device | null; attempt: CountedAttempt }
  | { status: "wrong-password" }
  /** Over a limit: the password was not checked. */
  | { status: "locked"; retryAfterSeconds: number }
  /** The verification queue is full or the wait ran out. */
  | { status: "busy"; retryAfterSeconds: number };

/** The part of AppServices sign-in uses (named here, so this module does not import app/services.server.ts, which builds the guard). */
type SignInServices = { db: Database; clock: Clock; signIn: SignInGuard; addressKey: AddressKeyer };

/** The counters one attempt was counted in: cleared together when the sign-in finally succeeds. */
export type CountedAttempt = { device: Device | null; counted: { limiter: RateLimiter; key: string }[] };

/** Counts an attempt before anything is checked, so simultaneous attempts cannot all get through. */
export async function countSignInAttempt(
  services: SignInServices,
  attempt: { username: string; address: string; deviceCookie?: string },
): Promise<CountedAttempt | { locked: true; retryAfterSeconds: number }> {
  const counting = signInCountersFor(services, attempt);
  for (const { limiter, key } of counting.counted) {
    const decision = await limiter.hit(key);
    if (!decision.allowed) return { locked: true, retryAfterSeconds: decision.retryAfterSeconds };
  }
  return counting;
}

/** The counters an attempt from this browser is counted in: its device's own, or the address's and the account's. */
export function signInCountersFor(
  services: Pick<SignInServices, "signIn">,
  attempt: { username: string; address: string; deviceCookie?: string },
): CountedAttempt {
  const { limits, deviceCookies } = services.signIn;
  const shown = deviceCookies.read(attempt.deviceCookie);
  const device = shown && shown.username === attempt.username ? shown : null;
  const counted = device
    ? [{ limiter: limits.device, key: device.id }]
    : [
        { limiter: limits.address, key: attempt.address },
        { limiter: limits.account, key: ACCOUNT_KEY },
      ];
  return { device, counted };
}

/** A good sign-in clears the counters its attempts were counted in. */
export async function clearSignInCounts(attempt: CountedAttempt): Promise<void> {
  for (const { limiter, key } of attempt.counted) await limiter.reset(key);
}

/**
 * Checks a username and password under the limits. With `keepCounts` a right password leaves the counters: with
 * two-step on only the second step clears them, so a known password cannot buy endless code guesses.
 */
export async function checkSignIn(
  services: SignInServices,
  attempt: SignInAttempt,
  options: { keepCounts?: boolean } = {},
): Promise<SignInOutcome> {
  const { gate, meter } = services.signIn;
  const counting = await countSignInAttempt(services, attempt);
  if ("locked" in counting) return { status: "locked", retryAfterSeconds: counting.retryAfterSeconds };
  const { device } = counting;

  const release = await gate.acquire({ reserved: device !== null });
  if (!release) return { status: "busy", retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
  let user: CurrentUser | null;
  try {
    user = await verifyCredentials({ db: services.db, meter }, attempt.username, attempt.password);
  } finally {
    release();
  }

  if (!user) {
    await recordSignInFailure(services, attempt.address);
    return { status: "wrong-password" };
  }
  if (!options.keepCounts) await clearSignInCounts(counting);
  return { status: "signed-in", user, device, attempt: counting };
}

/** Clears every sign-in lock-out (`npm run admin:password`, ADMIN_PASSWORD_RESET=1). */
export function clearSignInLimits(db: Database): Promise<number> {
  return clearRateLimits(db, SIGN_IN_SCOPES);
}

/** Notes a failed sign-in for the next good one's report, at most FAILURE_ADDRESSES_KEPT addresses. */
export async function recordSignInFailure(services: Omit<SignInServices, "signIn">, address: string) {
  const { db } = services;
  const now = services.clock.now().toISOString();
  const hash = services.addressKey(address);
  const seen = await db
    .updateTable("sign_in_failures")
    .set((eb) => ({ attempts: eb("attempts", "+", 1), last_failed_at: now }))
    .where("address_hash", "=", hash)
    .executeTakeFirst();
  if (Number(seen.numUpdatedRows) > 0) return;
  const { rows } = await db
    .selectFrom("sign_in_failures")
    .select((eb) => eb.fn.countAll().as("rows"))
    .executeTakeFirstOrThrow();
  const key = Number(rows) >= FAILURE_ADDRESSES_KEPT ? OTHER_ADDRESSES : hash;
  await db
    .insertInto("sign_in_failures")
    .values({ address_hash: key, attempts: 1, first_failed_at: now, last_failed_at: now })
    .onConflict((oc) =>
      oc.column("address_hash").doUpdateSet((eb) => ({
        attempts: eb("sign_in_failures.attempts", "+", 1),
        last_failed_at: eb.ref("excluded.last_failed_at"),
      })),
    )
    .execute();
}

const NO_FAILURES: SignInReport = {
  failedAttempts: 0,
  addresses: 0,
  moreAddresses: false,
  firstFailedAt: null,
  lastFailedAt: null,
};

/** Takes the failures since the last sign-in (atomically, none counted twice) and files them with the session. */
export async function fileSignInReport(services: { db: Database }, sessionId: string): Promise<SignInReport> {
  const rows = await services.db.deleteFrom("sign_in_failures").returningAll().execute();
  if (!rows.length) {
    await saveReport(services.db, sessionId, NO_FAILURES);
    return NO_FAILURES;
  }
  const times = rows.flatMap((row) => [row.first_failed_at, row.last_failed_at]).sort();
  const report: SignInReport = {
    failedAttempts: rows.reduce((sum, row) => sum + Number(row.attempts), 0),
    addresses: rows.filter((row) => row.address_hash !== OTHER_ADDRESSES).length,
    moreAddresses: rows.some((row) => row.address_hash === OTHER_ADDRESSES),
    firstFailedAt: times[0]!,
    lastFailedAt: times[times.length - 1]!,
  };
  await saveReport(services.db, sessionId, report);
  return report;
}

async function saveReport(db: Database, sessionId: string, report: SignInReport) {
  await db
    .insertInto("sign_in_reports")
    .values({
      session_id: sessionId,
      failed_attempts: report.failedAttempts,
      failed_addresses: report.addresses,
      addresses_capped: report.moreAddresses ? 1 : 0,
      first_failed_at: report.firstFailedAt,
      last_failed_at: report.lastFailedAt,
    })
    .execute();
}

/** The report filed with this session at its sign-in (none for sessions older than the feature). */
export async function readSignInReport(services: { db: Database }, sessionId: string): Promise<SignInReport> {
  const row = await services.db
    .selectFrom("sign_in_reports")
    .selectAll()
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  if (!row) return NO_FAILURES;
  return {
    failedAttempts: Number(row.failed_attempts),
    addresses: Number(row.failed_addresses),
    moreAddresses: Number(row.addresses_capped) === 1,
    firstFailedAt: row.first_failed_at,
    lastFailedAt: row.last_failed_at,
  };
}
