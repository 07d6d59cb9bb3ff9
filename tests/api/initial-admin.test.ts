import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setAdministratorCredentials, verifyCredentials } from "~/auth/auth.server";
import { initialPasswordPath, prepareAdministrator } from "~/auth/initial-admin.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { openServices } from "../../server/bootstrap";

// Issue 8, items 10 and 11: the first-start password file, and ADMIN_PASSWORD applied only when asked.

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
  const services = await openServices(parseEnv({ DATA_DIR: dataDir, ...env }), createLogger({ level: "info", destination }));
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
    expect(again.warnings).toEqual([expect.stringMatching(/ADMIN_PASSWORD is set but was not applied.*ADMIN_PASSWORD_RESET=1/)]);
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
    const scopes = (await reset.services.db.selectFrom("rate_limit_counters").select("scope").execute()).map((r) => r.scope);
    expect(scopes).toEqual(["contact"]);
  });
});
