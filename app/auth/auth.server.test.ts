import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { createManualClock } from "~/lib/clock";
import {
  GENERATED_PASSWORD_LENGTH,
  createSession,
  ensureAdministrator,
  getSessionUser,
  pruneExpiredSessions,
  verifyCredentials,
  type VerificationMeter,
} from "./auth.server";

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-auth-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("ensureAdministrator", () => {
  it("creates admin with a random password of at least 20 characters, storing only an argon2id hash", async () => {
    const result = await ensureAdministrator({ db }, {});
    expect(result.action).toBe("created");
    expect(result.username).toBe("admin");
    expect(result.generatedPassword!.length).toBeGreaterThanOrEqual(20);
    expect(result.generatedPassword!.length).toBe(GENERATED_PASSWORD_LENGTH);
    const rows = await db.selectFrom("users").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$/);
    expect(rows[0]!.password_hash).not.toContain(result.generatedPassword);
    expect(await verifyCredentials({ db }, "admin", result.generatedPassword!)).toMatchObject({ username: "admin" });

    const second = await ensureAdministrator({ db }, {});
    expect(second).toEqual({ action: "unchanged", username: "admin" });
  });

  it("creates the administrator from the environment, and changes it later only when told to reset", async () => {
    expect((await ensureAdministrator({ db }, { username: "mark", password: "first password" })).action).toBe(
      "created",
    );
    expect((await ensureAdministrator({ db }, { username: "mark", password: "first password" })).action).toBe(
      "unchanged",
    );
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    await createSession({ db }, user.id);

    // Changed since (dashboard or npm run admin:password): a restart with the old ADMIN_PASSWORD leaves it alone.
    expect(await ensureAdministrator({ db }, { username: "mark.b", password: "second password" })).toEqual({
      action: "not-applied",
      username: "mark",
    });
    expect(await verifyCredentials({ db }, "mark", "first password")).not.toBeNull();
    expect(await db.selectFrom("sessions").selectAll().execute()).toHaveLength(1);

    // ADMIN_PASSWORD_RESET=1 applies it.
    expect(
      (await ensureAdministrator({ db }, { username: "mark.b", password: "second password", reset: true })).action,
    ).toBe("updated");
    expect(await db.selectFrom("users").selectAll().execute()).toHaveLength(1);
    expect(await verifyCredentials({ db }, "mark.b", "second password")).not.toBeNull();
    expect(await verifyCredentials({ db }, "mark.b", "first password")).toBeNull();
    expect(await db.selectFrom("sessions").selectAll().execute()).toHaveLength(0);
  });
});

describe("verifyCredentials", () => {
  it("runs one argon2 verification whether or not the username exists (counted, not timed)", async () => {
    await ensureAdministrator({ db }, { username: "owner", password: "the password" });
    const meter: VerificationMeter = { verifications: 0 };
    expect(await verifyCredentials({ db, meter }, "owner", "wrong password")).toBeNull();
    expect(meter.verifications).toBe(1);
    expect(await verifyCredentials({ db, meter }, "nobody", "wrong password")).toBeNull();
    expect(meter.verifications).toBe(2);
    expect(await verifyCredentials({ db, meter }, "owner", "the password")).toMatchObject({ username: "owner" });
    expect(meter.verifications).toBe(3);
  });
});

describe("sessions", () => {
  const DAY = 24 * 60 * 60 * 1000;

  it("end after 14 days without use, and after 30 days even when used", async () => {
    await ensureAdministrator({ db }, { username: "a", password: "password one" });
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const clock = createManualClock("2026-05-01T00:00:00.000Z");
    const almostIdle = await createSession({ db, clock }, user.id);
    const idle = await createSession({ db, clock }, user.id);
    const used = await createSession({ db, clock }, user.id);
    for (let day = 1; day <= 13; day++) {
      clock.advance(DAY);
      expect(await getSessionUser({ db, clock }, used.token), `day ${day}`).not.toBeNull();
    }
    clock.advance(DAY - 1);
    expect(await getSessionUser({ db, clock }, almostIdle.token), "unused for 14 days less 1 ms").not.toBeNull();
    clock.advance(1);
    expect(await getSessionUser({ db, clock }, idle.token), "unused for 14 days").toBeNull();
    expect(await pruneExpiredSessions({ db, clock })).toBe(1);
    for (let day = 15; day < 30; day++) {
      clock.advance(DAY);
      expect(await getSessionUser({ db, clock }, used.token), `day ${day}`).not.toBeNull();
    }
    clock.advance(DAY);
    expect(await getSessionUser({ db, clock }, used.token), "30 days old").toBeNull();
  });

  it("records use at most every 5 minutes, not at every request", async () => {
    await ensureAdministrator({ db }, { username: "a", password: "password one" });
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const clock = createManualClock("2026-05-01T00:00:00.000Z");
    const { token, id } = await createSession({ db, clock }, user.id);
    const lastUsed = async () =>
      (await db.selectFrom("sessions").select("last_used_at").where("id", "=", id).executeTakeFirstOrThrow())
        .last_used_at;
    clock.advance(4 * 60_000);
    await getSessionUser({ db, clock }, token);
    expect(await lastUsed()).toBe("2026-05-01T00:00:00.000Z");
    clock.advance(60_001);
    await getSessionUser({ db, clock }, token);
    await getSessionUser({ db, clock }, token);
    expect(await lastUsed()).toBe("2026-05-01T00:05:00.001Z");
  });

  it("prunes expired rows only", async () => {
    await ensureAdministrator({ db }, { username: "a", password: "password one" });
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    await createSession({ db }, user.id, new Date(Date.now() - 31 * 24 * 3600 * 1000));
    await createSession({ db }, user.id);
    expect(await pruneExpiredSessions({ db })).toBe(1);
    expect(await db.selectFrom("sessions").selectAll().execute()).toHaveLength(1);
  });
});
