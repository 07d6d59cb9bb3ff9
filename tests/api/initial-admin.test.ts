// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { createSession, getSessionUser, setAdministratorCredentials, verifyCredentials } from "~/auth/auth.server";
import { AdministratorRequiredError, initialPasswordPath, prepareAdministrator } from "~/auth/initial-admin.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { isStartupCheckError, openServices } from "../../server/bootstrap";
import { createTestDatabase, type TestDatabase } from "../support/backends";

// The first-start password file, and ADMIN_PASSWORD applied only when asked.

let dataDir: string;
let opened: AppServices[] = [];
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-first-"));
});
afterEach(async () => {
  for (const services of opened) await services.db.destroy();
  opened = [];
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** One start-up: the services over dataDir, the administrator prepared; what was printed and logged. */
async function start(env: Record<string, string> = {}) {
  const logs: { level: number; msg: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logs.push(JSON.parse(line));
      callback();
    },
  });
  const services = await openServices(
    parseEnv({ DATA_DIR: dataDir, ...env }),
    createLogger({ level: "info", destination }),
  );
  opened.push(services);
  let printed = "";
  await prepareAdministrator(services, (text) => (printed += text));
  const warnings = logs.filter((l) => l.level === 40).map((l) => l.msg);
  return { services, printed, logs, warnings };
}

describe("the first start", () => {
  it("writes the generated password to DATA_DIR/secrets/initial-admin-password (0600) and prints only the path", async () => {
    const { services, printed, logs } = await start();
    const file = initialPasswordPath(dataDir);
    const content = await fs.readFile(file, "utf8");
    const password = /^password: (\S+)$/m.exec(content)?.[1];
    expect(password).toHaveLength(24);
    expect(content).toMatch(/^username: admin$/m);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(file))).mode & 0o077).toBe(0);
    expect(printed).toContain(file);
    expect(printed).not.toContain(password);
    expect(JSON.stringify(logs)).not.toContain(password);
    expect(await verifyCredentials(services, "admin", password!)).not.toBeNull();
  });

  it("prints nothing at later starts, and reminds in the log while the file is there", async () => {
    const first = await start();
    const password = /^password: (\S+)$/m.exec(await fs.readFile(initialPasswordPath(dataDir), "utf8"))![1]!;
    await first.services.db.destroy();
    opened = [];
    const second = await start();
    expect(second.printed).toBe("");
    expect(second.warnings).toEqual([expect.stringMatching(/first-start admin password is still unchanged/)]);
    expect(JSON.stringify(second.logs)).not.toContain(password);
  });

  it("removes a file whose password no longer signs in (a restore brought another administrator), and stops saying it is unchanged", async () => {
    const first = await start();
    // What a restore leaves: another administrator in the database, this start's file beside it.
    await setAdministratorCredentials(first.services, { username: "owner", password: "the restored site's password" });
    await first.services.db.destroy();
    opened = [];
    const second = await start();
    expect(second.warnings).toEqual([]);
    expect(second.logs.map((l) => l.msg)).toContain(
      "removed the first-start admin password file: its password no longer signs in",
    );
    await expect(fs.access(initialPasswordPath(dataDir))).rejects.toThrow(/ENOENT/);
  });
});

describe("ADMIN_PASSWORD", () => {
  const credentials = { ADMIN_USERNAME: "owner", ADMIN_PASSWORD: "the first password" };

  it("creates the administrator without a password file", async () => {
    const { services, printed } = await start(credentials);
    expect(printed).toBe("");
    await expect(fs.access(initialPasswordPath(dataDir))).rejects.toThrow(/ENOENT/);
    expect(await verifyCredentials(services, "owner", "the first password")).not.toBeNull();
  });

  it("does not undo a later password change at a restart; it warns instead", async () => {
    const first = await start(credentials);
    await setAdministratorCredentials(first.services, { password: "changed on the dashboard" });
    await first.services.db.destroy();
    opened = [];

    const again = await start(credentials);
    expect(again.warnings).toEqual([
      expect.stringMatching(/ADMIN_PASSWORD is set but was not applied.*ADMIN_PASSWORD_RESET=1/),
    ]);
    expect(await verifyCredentials(again.services, "owner", "changed on the dashboard")).not.toBeNull();
    expect(await verifyCredentials(again.services, "owner", "the first password")).toBeNull();
  });

  it("is applied with ADMIN_PASSWORD_RESET=1, which also clears the sign-in lock-outs and the first-start file", async () => {
    const first = await start();
    await first.services.signIn.limits.account.hit("administrator");
    await first.services.limits.contact.hit("203.0.113.9");
    await first.services.db.destroy();
    opened = [];

    const reset = await start({ ...credentials, ADMIN_PASSWORD_RESET: "1" });
    expect(reset.warnings).toEqual([expect.stringMatching(/ADMIN_PASSWORD_RESET=1: .*Remove ADMIN_PASSWORD_RESET/)]);
    expect(await verifyCredentials(reset.services, "owner", "the first password")).not.toBeNull();
    await expect(fs.access(initialPasswordPath(dataDir))).rejects.toThrow(/ENOENT/);
    const scopes = (await reset.services.db.selectFrom("rate_limit_counters").select("scope").execute()).map(
      (r) => r.scope,
    );
    expect(scopes).toEqual(["contact"]);
    // The security log says the password changed, on the server.
    const logged = await reset.services.db.selectFrom("activity_log").select(["kind", "detail"]).execute();
    expect(logged).toEqual([{ kind: "account.password-changed", detail: '{"via":"server"}' }]);
  });

  it("ADMIN_PASSWORD_RESET=1 ends every session and lock-out even when the name and password are already those", async () => {
    const first = await start(credentials);
    const user = await first.services.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const sessions = [await createSession(first.services, user.id), await createSession(first.services, user.id)];
    await first.services.signIn.limits.account.hit("administrator");
    await first.services.db.destroy();
    opened = [];

    const reset = await start({ ...credentials, ADMIN_PASSWORD_RESET: "1" });
    for (const session of sessions) expect(await getSessionUser(reset.services, session.token)).toBeNull();
    expect(await reset.services.db.selectFrom("sessions").select("id").execute()).toEqual([]);
    expect(await reset.services.db.selectFrom("rate_limit_counters").select("scope").execute()).toEqual([]);
    expect(await verifyCredentials(reset.services, "owner", "the first password")).not.toBeNull();
  });
});

describe("the first administrator on PostgreSQL (decision 0044)", () => {
  const credentials = { ADMIN_USERNAME: "owner", ADMIN_PASSWORD: "the first password" };
  let database: TestDatabase;
  let otherDataDir: string;
  beforeEach(async () => {
    const { postgresUrl, postgresTemplate } = inject("backends");
    database = await createTestDatabase(postgresUrl, { template: postgresTemplate });
    // A second machine: its own disk.
    otherDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-first-other-"));
  });
  afterEach(async () => {
    for (const services of opened) await services.close();
    opened = [];
    await database.drop();
    await fs.rm(otherDataDir, { recursive: true, force: true });
  });

  /** One instance's services over the shared database, not yet prepared. */
  async function open(onDisk: string, env: Record<string, string> = {}) {
    const services = await openServices(
      parseEnv({ DATA_DIR: onDisk, DATABASE_URL: database.url, LOG_LEVEL: "silent", ...env }),
      createLogger({ level: "silent" }),
    );
    opened.push(services);
    return services;
  }

  it("refuses to start without ADMIN_USERNAME and ADMIN_PASSWORD while there is no administrator, saying how to fix it", async () => {
    const services = await open(dataDir);
    let printed = "";
    const error = await prepareAdministrator(services, (text) => (printed += text)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdministratorRequiredError);
    expect(isStartupCheckError(error)).toBe(true);
    expect((error as Error).message).toMatch(/no administrator yet.*DATABASE_URL/s);
    expect((error as Error).message).toContain("Set ADMIN_USERNAME and ADMIN_PASSWORD");
    expect(printed).toBe("");
    expect(await services.db.selectFrom("users").select("id").execute()).toEqual([]);
    await expect(fs.access(initialPasswordPath(dataDir))).rejects.toThrow(/ENOENT/);
  });

  it("once the administrator exists, later starts need neither", async () => {
    await prepareAdministrator(await open(dataDir, credentials), () => {});
    const later = await open(otherDataDir);
    await prepareAdministrator(later, () => {});
    expect(await verifyCredentials(later, "owner", "the first password")).not.toBeNull();
  });

  /**
   * Runs both start-ups while another connection holds back every write to
   * users, and lets the writes go only once both are waiting on a lock: both
   * have then looked for an administrator, or one waits for the other's check.
   * So the race is run every time, not only when the timing happens to allow it.
   */
  async function startTogether(starts: (() => Promise<void>)[]): Promise<void> {
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE users IN EXCLUSIVE MODE");
      const done = Promise.allSettled(starts.map((start) => start()));
      for (let waited = 0; ; waited += 20) {
        const { rows } = await blocker.query<{ waiting: string }>(
          "select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
        if (Number(rows[0]!.waiting) >= starts.length) break;
        if (waited > 15_000) {
          const { rows: activity } = await blocker.query(
            "select state, wait_event_type, wait_event, query from pg_stat_activity where datname = current_database()",
          );
          throw new Error(`the start-ups never both waited: ${JSON.stringify(activity)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await blocker.query("COMMIT");
      for (const result of await done) if (result.status === "rejected") throw result.reason;
    } finally {
      await blocker.end();
    }
  }

  it("two instances starting at once on a fresh database make exactly one administrator, and both start", async () => {
    const a = await open(dataDir, credentials);
    const b = await open(otherDataDir, credentials);
    await startTogether([() => prepareAdministrator(a, () => {}), () => prepareAdministrator(b, () => {})]);
    expect(await a.db.selectFrom("users").select("username").execute()).toEqual([{ username: "owner" }]);
    expect(await verifyCredentials(b, "owner", "the first password")).not.toBeNull();
  });

  it("an instance started with another username finds the winner's administrator instead of adding its own", async () => {
    const a = await open(dataDir, credentials);
    const b = await open(otherDataDir, { ADMIN_USERNAME: "second", ADMIN_PASSWORD: "another password" });
    await startTogether([() => prepareAdministrator(a, () => {}), () => prepareAdministrator(b, () => {})]);
    const users = await a.db.selectFrom("users").select("username").execute();
    expect(users).toHaveLength(1);
    expect(["owner", "second"]).toContain(users[0]!.username);
  });
});
