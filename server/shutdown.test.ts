import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { createLogger } from "~/lib/logger.server";
import { createShutdown } from "./shutdown";

const logger = createLogger({ level: "silent" });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real HTTP server whose handler the test controls, and a real SQLite database in WAL mode. */
async function startServer(handler: http.RequestListener) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-shutdown-"));
  const db: Database = openDatabase(dataDir);
  await migrateToLatest(db);
  const server = http.createServer(handler).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await db.destroy().catch(() => {});
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  return { server, db, dataDir, port: (server.address() as AddressInfo).port };
}

function get(port: number, agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("graceful shutdown", () => {
  it("finishes a request in flight, refuses new connections, then closes the database and exits 0", async () => {
    const arrived = gate();
    const finish = gate();
    const site = await startServer(async (_req, res) => {
      arrived.open();
      await finish.opened;
      res.end("finished");
    });
    await sql`insert into content_entries (key, content, updated_at) values ('hero.title', 'x', '2026-01-01')`.execute(
      site.db,
    );
    expect(existsSync(path.join(site.dataDir, "site.db-wal"))).toBe(true);
    const exits: number[] = [];
    const stop = createShutdown(site.server, {
      logger,
      close: () => site.db.destroy(),
      exit: (code) => exits.push(code),
    });

    const inFlight = get(site.port);
    await arrived.opened;
    const stopped = stop("SIGTERM");
    await expect(get(site.port)).rejects.toThrow(/ECONNREFUSED/);
    expect(exits).toEqual([]);
    finish.open();
    expect(await inFlight).toEqual({ status: 200, body: "finished" });
    await stopped;
    expect(exits).toEqual([0]);
    // The database is closed: queries fail, and SQLite folded the WAL back into the file and removed it.
    await expect(sql`select 1`.execute(site.db)).rejects.toThrow();
    expect(existsSync(path.join(site.dataDir, "site.db-wal"))).toBe(false);
  });

  it("closes connections still open after the grace period, then exits 0", async () => {
    const arrived = gate();
    const site = await startServer(() => {
      arrived.open();
      // Never answers: a stalled client or a stuck handler.
    });
    const exits: number[] = [];
    let closed = false;
    const stop = createShutdown(site.server, {
      logger,
      close: async () => {
        closed = true;
        await site.db.destroy();
      },
      exit: (code) => exits.push(code),
      forceCloseAfterMs: 20,
    });
    const stalled = get(site.port);
    await arrived.opened;
    await stop("SIGTERM");
    await expect(stalled).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(closed).toBe(true);
    expect(exits).toEqual([0]);
  });

  it("closes idle keep-alive connections after half a second, without waiting for the grace period", async () => {
    const site = await startServer((_req, res) => res.end("ok"));
    const agent = new http.Agent({ keepAlive: true });
    expect((await get(site.port, agent)).status).toBe(200);
    const exits: number[] = [];
    // A grace period far longer than the test's timeout: only closing idle connections lets it finish.
    await createShutdown(site.server, {
      logger,
      close: () => site.db.destroy(),
      exit: (code) => exits.push(code),
      forceCloseAfterMs: 3_600_000,
    })("SIGINT");
    expect(exits).toEqual([0]);
    agent.destroy();
  });

  it("answers a request that comes on an idle keep-alive connection just after the signal, and closes that connection", async () => {
    const site = await startServer((_req, res) => res.end("answered"));
    const socket = net.connect(site.port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk));
    const ended = new Promise((resolve) => socket.once("close", resolve));
    // A proxy's pooled connection: one request answered, kept open for the next.
    socket.write("GET / HTTP/1.1\r\nHost: site\r\n\r\n");
    await expect.poll(() => received).toContain("answered");
    expect(received).toMatch(/\r\nConnection: keep-alive\r\n/i);
    received = "";
    const exits: number[] = [];
    const stopped = createShutdown(site.server, {
      logger,
      close: () => site.db.destroy(),
      exit: (code) => exits.push(code),
    })("SIGTERM");
    // The proxy sends an enquiry on it once the signal has taken hold (no new connection is taken), before it could know.
    await expect(get(site.port)).rejects.toThrow(/ECONNREFUSED/);
    socket.write("POST /api/contact HTTP/1.1\r\nHost: site\r\nContent-Length: 2\r\n\r\n{}");
    await ended;
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
    expect(received.endsWith("answered")).toBe(true);
    await stopped;
    expect(exits).toEqual([0]);
  });

  it("SIGINT after SIGTERM changes nothing: one shutdown, one exit", async () => {
    const site = await startServer((_req, res) => res.end("ok"));
    const exits: number[] = [];
    let closes = 0;
    const stop = createShutdown(site.server, {
      logger,
      close: async () => {
        closes += 1;
        await site.db.destroy();
      },
      exit: (code) => exits.push(code),
    });
    const first = stop("SIGTERM");
    const second = stop("SIGINT");
    await Promise.all([first, second]);
    expect([closes, exits]).toEqual([1, [0]]);
  });

  it("exits 1 when closing the database fails", async () => {
    const site = await startServer((_req, res) => res.end("ok"));
    const exits: number[] = [];
    await createShutdown(site.server, {
      logger,
      close: async () => {
        throw new Error("disk gone");
      },
      exit: (code) => exits.push(code),
    })("SIGTERM");
    expect(exits).toEqual([1]);
  });
});
