// @desktop-only: server behaviour, the same at any screen size
import { existsSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { makeImage } from "../fixtures/images";
import { TEST_ADMIN, startTestServer } from "../support/test-server";

/** An upload's status as the server stored it (read-only, beside the running server). */
async function uploadStatus(dataDir: string, id: string): Promise<string | undefined> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(path.join(dataDir, "site.db"), { readonly: true });
  try {
    return (db.prepare("select status from uploads where id = ?").get(id) as { status: string } | undefined)?.status;
  } finally {
    db.close();
  }
}

// Operations: no browser needed, one server per test.
test.describe("operations", () => {
  test("GET /healthz answers 200 after reading the database", async () => {
    const server = await startTestServer();
    try {
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    } finally {
      await server.stop();
    }
  });

  test("the first start puts admin's random password in a private file, prints only its path, and deletes it at the first change", async () => {
    const fs = await import("node:fs/promises");
    const os = await import("node:os");
    const path = await import("node:path");
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-first-start-"));
    const file = path.join(dataDir, "secrets", "initial-admin-password");
    const noAdminEnv = { ADMIN_USERNAME: "", ADMIN_PASSWORD: "", DATA_DIR: dataDir };
    const first = await startTestServer({ env: noAdminEnv });
    let password: string;
    try {
      password = /^password: (\S+)$/m.exec(await fs.readFile(file, "utf8"))?.[1] ?? "";
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      expect(first.output()).toContain(file);
      expect(first.output()).not.toContain(password);
      const login = await fetch(`${first.url}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "admin", password }),
      });
      expect(login.status).toBe(200);
    } finally {
      first.signal("SIGTERM");
      await first.exited;
    }
    const second = await startTestServer({ env: noAdminEnv });
    try {
      expect(second.output()).not.toContain(password);
      expect(second.output()).not.toMatch(/password:/);
      // Changing the password (here on the dashboard's endpoint) deletes the file.
      const login = await fetch(`${second.url}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "admin", password }),
      });
      const cookie = login.headers
        .getSetCookie()
        .find((c) => c.startsWith("cornerstone_session="))!
        .split(";")[0]!;
      const newPassword = "the owner's own long password";
      const changed = await fetch(`${second.url}/api/admin/password`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: JSON.stringify({ currentPassword: password, newPassword, confirmPassword: newPassword }),
      });
      expect(changed.status).toBe(200);
      await expect(fs.access(file)).rejects.toThrow(/ENOENT/);
    } finally {
      await second.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  test("an invalid setting stops start-up with a clear message", async () => {
    const { spawnSync } = await import("node:child_process");
    const result = spawnSync(process.execPath, ["build/server/index.js"], {
      env: { ...process.env, PORT: "not-a-port", SITE_URL: "nope" },
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Invalid configuration");
    expect(result.stderr).toContain("PORT");
    expect(result.stderr).toContain("SITE_URL must be an absolute URL");
  });

  test("on SIGTERM the server stops accepting, finishes requests in flight, closes the database and exits", async () => {
    const server = await startTestServer();
    try {
      const login = await fetch(`${server.url}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(TEST_ADMIN),
      });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const { uploadURL } = await (
        await fetch(`${server.url}/api/objects/upload`, { method: "POST", headers: { Cookie: cookie } })
      ).json();

      // A slow upload: half now, the rest once the server is shutting down.
      const jpeg = await makeImage("jpeg", { width: 800, height: 600 });
      const file = Buffer.concat([jpeg, Buffer.alloc(512 * 1024)]);
      let step = 0;
      let sendTheRest!: () => void;
      const shuttingDown = new Promise<void>((resolve) => (sendTheRest = resolve));
      const body = new ReadableStream({
        async pull(controller) {
          step += 1;
          if (step === 1) controller.enqueue(new Uint8Array(file.subarray(0, file.length / 2)));
          else if (step === 2) {
            await shuttingDown;
            controller.enqueue(new Uint8Array(file.subarray(file.length / 2)));
          } else controller.close();
        },
      });
      const inFlight = fetch(`${server.url}${uploadURL}`, {
        method: "PUT",
        headers: { "Content-Type": "image/jpeg", Cookie: cookie },
        body,
        duplex: "half",
      } as RequestInit);

      // The server has the upload under way once its record says so.
      const uploadId = new URL(uploadURL, server.url).pathname.split("/").pop()!;
      await expect.poll(() => uploadStatus(server.dataDir, uploadId)).toBe("receiving");
      server.signal("SIGTERM");
      // New connections are refused while the upload is still open.
      await expect
        .poll(() =>
          fetch(`${server.url}/healthz`).then(
            () => "accepted",
            () => "refused",
          ),
        )
        .toBe("refused");
      sendTheRest();

      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ message: "Upload complete" });
      expect(await server.exited).toBe(0);
      // A clean close folds SQLite's write-ahead log back into the file and removes it.
      expect(existsSync(path.join(server.dataDir, "site.db-wal"))).toBe(false);
      expect(await uploadStatus(server.dataDir, uploadId)).toBe("completed");
    } finally {
      await server.stop();
    }
  });

  test("on SIGINT (Ctrl+C) the server closes the database and exits 0", async () => {
    const server = await startTestServer();
    try {
      // A write, so the database has a write-ahead log open.
      expect(
        (
          await fetch(`${server.url}/api/login`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(TEST_ADMIN),
          })
        ).status,
      ).toBe(200);
      expect(existsSync(path.join(server.dataDir, "site.db-wal"))).toBe(true);
      server.signal("SIGINT");
      expect(await server.exited).toBe(0);
      expect(existsSync(path.join(server.dataDir, "site.db-wal"))).toBe(false);
    } finally {
      await server.stop();
    }
  });

  test("TRUST_PROXY=true is refused at start-up, with what to set instead", async () => {
    const { spawnSync } = await import("node:child_process");
    const result = spawnSync(process.execPath, ["build/server/index.js"], {
      env: { ...process.env, TRUST_PROXY: "true" },
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("TRUST_PROXY=true would believe any client's X-Forwarded-For");
    expect(result.stderr).toMatch(/loopback.*CIDR.*hop count/);
  });

  test("the start-up log says whose X-Forwarded-For is trusted", async () => {
    const server = await startTestServer({ env: { LOG_LEVEL: "info", TRUST_PROXY: "1" } });
    try {
      expect(server.output()).toContain("TRUST_PROXY=1: the last 1 hop(s) of X-Forwarded-For are trusted");
    } finally {
      await server.stop();
    }
  });
});
