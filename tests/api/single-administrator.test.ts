// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { createSession, getSessionUser, hashPassword, verifyCredentials } from "~/auth/auth.server";
import { prepareAdministrator } from "~/auth/initial-admin.server";
import { SeveralAdministratorsError } from "~/auth/single-administrator.server";
import { SIGN_IN_SCOPES } from "~/auth/sign-in.server";
import { migrateTo, openDatabaseAt, type Database, type DatabaseTarget } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { isStartupCheckError, openServices } from "../../server/bootstrap";
import { createTestDatabase, type TestDatabase } from "../support/backends";
import { runAdminPassword } from "./admin-password-runner";

// Exactly one administrator, enforced by the database itself on both engines.

const OWNER = { username: "owner", password: "the owner's password" };

describe.each(["sqlite", "postgres"] as const)("one administrator on %s", (engine) => {
  let dataDir: string;
  let database: TestDatabase | null = null;
  let envVars: Record<string, string>;
  const opened: AppServices[] = [];

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-one-admin-"));
    envVars = {
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      ADMIN_USERNAME: OWNER.username,
      ADMIN_PASSWORD: OWNER.password,
    };
    if (engine === "postgres") {
      // An empty database (no template): some tests build it at an older schema.
      database = await createTestDatabase(inject("backends").postgresUrl);
      envVars.DATABASE_URL = database.url;
    }
  });
  afterEach(async () => {
    for (const services of opened.splice(0)) await services.close();
    await database?.drop();
    database = null;
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const target = (): DatabaseTarget =>
    database ? { kind: "postgres", url: database.url } : { kind: "sqlite", dataDir };

  /** A start of the server: the services over this database, migrated, the administrator prepared. */
  async function start() {
    const services = await openServices(parseEnv(envVars), createLogger({ level: "silent" }));
    opened.push(services);
    await prepareAdministrator(services, () => {});
    return services;
  }

  /** Runs `npm run admin:password` against this database, the password piped in. */
  const adminPassword = (input: string, args: string[] = []) => runAdminPassword(envVars, input, args);

  /** Hand-written SQL, as an operator (or an attacker with a shell) would type it; `singleton` only when given. */
  const insertUser = (db: Database, user: { id: string; username: string; createdAt?: string; singleton?: string }) =>
    sql
      .raw(
        `insert into users (id, username, password_hash, created_at, updated_at${user.singleton ? ", singleton" : ""}) ` +
          `values ('${user.id}', '${user.username}', 'x', '${user.createdAt ?? "2026-02-01T00:00:00.000Z"}', '2026-02-01T00:00:00.000Z'` +
          `${user.singleton ? `, ${user.singleton}` : ""})`,
      )
      .execute(db);
  const MALLORY = { id: "planted", username: "mallory" };

  it("refuses a second user inserted by hand-written SQL, whatever its singleton value", async () => {
    const services = await start();
    await expect(insertUser(services.db, MALLORY)).rejects.toThrow(/users_singleton|users\.singleton/);
    await expect(insertUser(services.db, { ...MALLORY, singleton: "2" })).rejects.toThrow(/check constraint/i);
    await expect(insertUser(services.db, { ...MALLORY, singleton: "null" })).rejects.toThrow(/not.null constraint/i);
    const users = await services.db.selectFrom("users").select("username").execute();
    expect(users).toEqual([{ username: "owner" }]);
  });

  describe("a database from before migration 0008 that holds two users", () => {
    beforeEach(async () => {
      const db = openDatabaseAt(target());
      try {
        await migrateTo(db, "0007-scale-out");
        await insertUser(db, { id: "owner-1", username: "owner", createdAt: "2026-01-01T00:00:00.000Z" });
        await insertUser(db, MALLORY);
        await db
          .updateTable("users")
          .set({ password_hash: await hashPassword(OWNER.password) })
          .where("id", "=", "owner-1")
          .execute();
        // Both signed in, and a sign-in lock-out in force.
        await createSession({ db }, "owner-1");
        await createSession({ db }, MALLORY.id);
        const counter = { window_start: "2026-01-01T00:00:00.000Z", expires_at: "2999-01-01T00:00:00.000Z", count: 99 };
        await db
          .insertInto("rate_limit_counters")
          .values(SIGN_IN_SCOPES.map((scope) => ({ scope, key: "k", ...counter })))
          .execute();
      } finally {
        await db.destroy();
      }
    });

    /** The users as stored, and whether migration 0008 ran. */
    async function stored() {
      const db = openDatabaseAt(target());
      try {
        const users = await db
          .selectFrom("users")
          .select(["username", "password_hash"])
          .orderBy("created_at")
          .execute();
        const columns = (await db.introspection.getTables())
          .find((table) => table.name === "users")!
          .columns.map((c) => c.name);
        const sessions = await db.selectFrom("sessions").select("id").execute();
        return { users, migrated: columns.includes("singleton"), sessions: sessions.length };
      } finally {
        await db.destroy();
      }
    }

    it("refuses to start, naming both users and the fix, and changes nothing", async () => {
      const before = await stored();
      expect(before.users.map((user) => user.username)).toEqual(["owner", "mallory"]);
      const refusal = await start().then(
        () => null,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(SeveralAdministratorsError);
      expect(isStartupCheckError(refusal)).toBe(true);
      const message = (refusal as Error).message;
      expect(message).toContain('The database holds 2 users ("owner", "mallory")');
      expect(message).toContain("npm run admin:password -- --keep NAME");

      expect(before).toMatchObject({ migrated: false, sessions: 2 });
      expect(await stored()).toEqual(before);
    });

    it("admin:password without --keep is refused with the same message, and changes nothing", async () => {
      const before = await stored();
      const result = await adminPassword("a brand new password\n");
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('The database holds 2 users ("owner", "mallory")');
      expect(result.stderr).toContain("--keep NAME");
      expect(await stored()).toEqual(before);
    });

    it("admin:password --keep of a user who is not there is refused, and changes nothing", async () => {
      const before = await stored();
      const result = await adminPassword("a brand new password\n", ["--keep", "nobody"]);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        'There is no user "nobody" to keep. The users are: "owner", "mallory". Nothing was changed.',
      );
      expect(await stored()).toEqual(before);
      await expect(start()).rejects.toThrow(SeveralAdministratorsError);
    });

    it("admin:password --keep owner keeps owner, deletes mallory and every session and lock-out; then the start succeeds", async () => {
      const result = await adminPassword("a brand new password\n", ["--keep", "owner"]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('Kept "owner"; deleted the other users and their sessions: "mallory".');

      const services = await start();
      expect(await services.db.selectFrom("users").select("username").execute()).toEqual([{ username: "owner" }]);
      expect(await services.db.selectFrom("sessions").select("id").execute()).toEqual([]);
      expect(await services.db.selectFrom("rate_limit_counters").select("scope").execute()).toEqual([]);
      expect(await verifyCredentials(services, "owner", "a brand new password")).not.toBeNull();
      // And from now on, the database itself keeps it at one.
      await expect(insertUser(services.db, MALLORY)).rejects.toThrow(/users_singleton|users\.singleton/);
    });
  });

  it("admin:password ends every session", async () => {
    const services = await start();
    const { id } = await services.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const sessions = [await createSession(services, id), await createSession(services, id)];
    expect((await adminPassword("a brand new password\n")).status).toBe(0);
    for (const session of sessions) expect(await getSessionUser(services, session.token)).toBeNull();
    expect(await services.db.selectFrom("sessions").select("id").execute()).toEqual([]);
  });
});
