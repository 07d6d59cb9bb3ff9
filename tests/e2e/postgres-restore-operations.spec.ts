// @desktop-only: server behaviour, the same at any screen size
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { lockDatabase } from "~/db/database-lock.server";
import { startScaledBackends, type ScaledBackends } from "../support/backends";
import { runScript } from "../support/run-script";
import { TEST_ADMIN, freePort, startTestServer } from "../support/test-server";

/**
 * `npm run restore` on PostgreSQL + S3 against real production servers: the
 * instances' shared advisory lock (server/start.ts) keeps a restore out while
 * any runs, and a restore keeps servers from starting. Desktop project only
 * (playwright.config.ts ignores *operations.spec.ts on mobile).
 */
let backends: ScaledBackends;
test.beforeAll(async () => {
  backends = await startScaledBackends();
});
test.afterAll(async () => {
  await backends?.stop();
});

test("a restore refuses while instances run, runs once they stop, and a server started afterwards serves the restored site; no server starts during a restore", async () => {
  const ports = [await freePort(), await freePort()];
  const provisioned = await backends.provision(ports.map((port) => `http://127.0.0.1:${port}`));
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restore-e2e-"));
  const scriptEnv = { ...provisioned.env, DATA_DIR: path.join(work, "data"), LOG_LEVEL: "warn" };
  // Stopped in the finally too, so that a failing step leaves no server holding the database.
  const running: { stop(): Promise<unknown> }[] = [];
  try {
    const a = await startTestServer({ port: ports[0], env: provisioned.env });
    running.push(a);
    const b = await startTestServer({ port: ports[1], env: provisioned.env });
    running.push(b);
    const login = await fetch(`${a.url}/api/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(TEST_ADMIN),
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const save = (content: string) =>
      fetch(`${a.url}/api/admin/content/hero.title`, {
        method: "PUT",
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: JSON.stringify({ content }),
      });
    expect((await save("Saved before the backup")).status).toBe(200);
    const download = await fetch(`${b.url}/api/admin/backups/download`, { headers: { Cookie: cookie } });
    expect(download.status).toBe(200);
    const archive = path.join(work, "site.tar.gz");
    await fs.writeFile(archive, Buffer.from(await download.arrayBuffer()));
    expect((await save("Saved after the backup")).status).toBe(200);

    // Two instances hold the lock: refused, nothing changed.
    const refused = await runScript("restore", [archive], scriptEnv);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /A Cornerstone server \(or npm run backup\) is using the database .*Stop every instance first.*Nothing was changed\./s,
    );
    expect(await provisioned.bucket.keys("backups/")).toEqual([]);

    // One still running is enough to refuse.
    await a.stop();
    expect((await runScript("restore", [archive], scriptEnv)).status).toBe(1);
    await b.stop();

    const restored = await runScript("restore", [archive], scriptEnv);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(
      /A backup of the data it replaced was written first: s3:\/\/.+\/backups\/pre-restore-\d{8}-\d{6}-[0-9a-f]{24}-[0-9a-f]{32}\.tar\.gz/,
    );

    // While a restore holds the database, a server refuses to start.
    const restoring = await lockDatabase(provisioned.database.url, "exclusive");
    try {
      const blocked = await startTestServer({ env: provisioned.env }).catch((error: unknown) => error as Error);
      expect(blocked).toBeInstanceOf(Error);
      expect((blocked as Error).message).toContain("A restore is running on the database");
    } finally {
      await restoring.release();
    }

    const c = await startTestServer({ port: ports[0], env: provisioned.env });
    try {
      const text = (await (await fetch(`${c.url}/api/content/hero.title`)).json()) as { content: string };
      expect(text.content).toBe("Saved before the backup");
    } finally {
      await c.stop();
    }
  } finally {
    await Promise.all(running.map((server) => server.stop()));
    await provisioned.remove();
    await fs.rm(work, { recursive: true, force: true });
  }
});
