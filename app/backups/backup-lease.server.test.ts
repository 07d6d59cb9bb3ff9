import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { isBackupRunning } from "~/storage/deferred-deletions.server";
import { acquireBackupLease, BACKUP_LEASE_TTL_MS, SCHEDULED_LEASE_ID } from "./backup-lease.server";

let dir: string;
let db: Database;
let clock: ManualClock;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-lease-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
  clock = createManualClock();
});
afterEach(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("backup leases", () => {
  it("a backup is running while any lease is live; releasing or expiry ends it", async () => {
    expect(await isBackupRunning({ db, clock })).toBe(false);
    const a = await acquireBackupLease({ db, clock }, "manual");
    const b = await acquireBackupLease({ db, clock }, "download");
    expect(a && b).toBeTruthy();
    expect(await isBackupRunning({ db, clock })).toBe(true);
    await a!.release();
    expect(await isBackupRunning({ db, clock })).toBe(true);
    clock.advance(BACKUP_LEASE_TTL_MS);
    // b's holder died without releasing: its lease runs out on its own.
    expect(await isBackupRunning({ db, clock })).toBe(false);
  });

  it("renewing keeps a lease alive; a lost lease cannot be renewed", async () => {
    const lease = (await acquireBackupLease({ db, clock }, "manual"))!;
    clock.advance(BACKUP_LEASE_TTL_MS - 1000);
    expect(await lease.renew()).toBe(true);
    clock.advance(BACKUP_LEASE_TTL_MS - 1000);
    expect(await isBackupRunning({ db, clock })).toBe(true);
    clock.advance(2000);
    expect(await lease.renew()).toBe(false);
  });

  it("the scheduled lease has one holder at a time, and is taken over only once it expired", async () => {
    const first = await acquireBackupLease({ db, clock }, "scheduled", { exclusiveId: SCHEDULED_LEASE_ID });
    expect(first).not.toBeNull();
    expect(await acquireBackupLease({ db, clock }, "scheduled", { exclusiveId: SCHEDULED_LEASE_ID })).toBeNull();
    clock.advance(BACKUP_LEASE_TTL_MS);
    const second = await acquireBackupLease({ db, clock }, "scheduled", { exclusiveId: SCHEDULED_LEASE_ID });
    expect(second).not.toBeNull();
    // The first holder can neither renew nor release the lease it lost.
    expect(await first!.renew()).toBe(false);
    await first!.release();
    expect(await isBackupRunning({ db, clock })).toBe(true);
    await second!.release();
    expect(await isBackupRunning({ db, clock })).toBe(false);
  });
});
