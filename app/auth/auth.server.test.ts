import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { GENERATED_PASSWORD_LENGTH, createSession, ensureAdministrator, pruneExpiredSessions, verifyCredentials } from "./auth.server";

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

  it("creates, then updates, the one administrator from the environment", async () => {
    expect((await ensureAdministrator({ db }, { username: "mark", password: "first password" })).action).toBe("created");
    expect((await ensureAdministrator({ db }, { username: "mark", password: "first password" })).action).toBe("unchanged");
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    await createSession({ db }, user.id);
    expect((await ensureAdministrator({ db }, { username: "mark.b", password: "second password" })).action).toBe("updated");
    expect(await db.selectFrom("users").selectAll().execute()).toHaveLength(1);
    expect(await verifyCredentials({ db }, "mark.b", "second password")).not.toBeNull();
    expect(await verifyCredentials({ db }, "mark.b", "first password")).toBeNull();
    expect(await db.selectFrom("sessions").selectAll().execute()).toHaveLength(0);
  });
});

describe("sessions", () => {
  it("prunes expired rows only", async () => {
    await ensureAdministrator({ db }, { username: "a", password: "password one" });
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    await createSession({ db }, user.id, new Date(Date.now() - 31 * 24 * 3600 * 1000));
    await createSession({ db }, user.id);
    expect(await pruneExpiredSessions({ db })).toBe(1);
    expect(await db.selectFrom("sessions").selectAll().execute()).toHaveLength(1);
  });
});
