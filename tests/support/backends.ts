/**
 * Throwaway back ends for tests, browser tests and the bench: a PostgreSQL 15
 * cluster (initdb + pg_ctl as the `postgres` user, on a free port, socket and
 * data in a temp dir) and an S3-protocol server (s3rver, in-process). Each
 * test context then gets its own database and its own bucket.
 *
 * Everything lives under os.tmpdir() in `cornerstone-pg-*` / `cornerstone-s3-*`
 * with the owning process id written inside, so a run that was killed before
 * it could clean up is cleaned up by the next one (sweepStaleBackends).
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import {
  OWNER_FILE,
  PG_PREFIX,
  S3_PREFIX,
  STALE_WITHOUT_OWNER_MS,
  olderThan,
  onInterrupt,
  processAlive,
} from "./backend-dirs";
import { createTestBucket, s3Env, startS3Server, type S3Server, type TestBucket } from "./s3-backend";
import { freePort } from "./test-server";

export * from "./s3-backend";

const run = promisify(execFile);

export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

// ---------------------------------------------------------------------------------------------
// PostgreSQL

export type PostgresCluster = {
  host: string;
  port: number;
  /** A superuser URL for a database of the cluster (default: the maintenance database). */
  url(database?: string): string;
  stop(): Promise<void>;
};

function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** initdb and pg_ctl refuse to run as root: as root, run them as the `postgres` user. */
function asClusterOwner(command: string, args: string[]): [string, string[]] {
  const binary = path.join(POSTGRES_BIN, command);
  return isRoot() ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
}

async function stopClusterIn(dir: string): Promise<void> {
  const dataDir = path.join(dir, "data");
  if (existsSync(path.join(dataDir, "postmaster.pid"))) {
    const [command, args] = asClusterOwner("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
    await run(command, args).catch(() => {});
  }
  await fs.rm(dir, { recursive: true, force: true });
}

/** Removes clusters and S3 directories left behind by runs that were killed. */
export async function sweepStaleBackends(): Promise<void> {
  const entries = await fs.readdir(os.tmpdir()).catch(() => [] as string[]);
  for (const name of entries) {
    if (!name.startsWith(PG_PREFIX) && !name.startsWith(S3_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    const owner = Number(await fs.readFile(path.join(dir, OWNER_FILE), "utf8").catch(() => "0"));
    if (owner && processAlive(owner)) continue;
    // No owner yet: another process may have just made it (mkdtemp, then the owner file). Leave it unless old.
    if (!owner && !(await olderThan(dir, STALE_WITHOUT_OWNER_MS))) continue;
    if (name.startsWith(PG_PREFIX)) await stopClusterIn(dir);
    else await fs.rm(dir, { recursive: true, force: true });
  }
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  if (!existsSync(path.join(POSTGRES_BIN, "initdb"))) {
    throw new Error(
      `PostgreSQL 15 was not found in ${POSTGRES_BIN}.\n` +
        "Install it with:  sudo apt-get install -y postgresql   (or set POSTGRES_BIN to its bin directory)",
    );
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), PG_PREFIX));
  await fs.writeFile(path.join(dir, OWNER_FILE), String(process.pid));
  if (isRoot()) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    await fs.chown(dir, uid, gid);
  }
  const dataDir = path.join(dir, "data");
  const forget = onInterrupt(() => {
    // Synchronous: this may run in an 'exit' handler.
    const [command, args] = asClusterOwner("pg_ctl", ["-D", dataDir, "-m", "immediate", "stop"]);
    try {
      execFileSync(command, args, { stdio: "ignore" });
    } catch {
      // Not running.
    }
    execFileSync("rm", ["-rf", dir]);
  });

  try {
    const [initdb, initArgs] = asClusterOwner("initdb", [
      "-D",
      dataDir,
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
      "--no-instructions",
    ]);
    await run(initdb, initArgs);
    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      // Durability is pointless for a throwaway cluster; these make it several times faster.
      const serverOptions = [
        `-p ${port}`,
        `-k ${dir}`,
        "-c listen_addresses=127.0.0.1",
        "-c fsync=off",
        "-c synchronous_commit=off",
        "-c full_page_writes=off",
        "-c max_connections=300",
        "-c shared_buffers=64MB",
      ].join(" ");
      const [pgCtl, ctlArgs] = asClusterOwner("pg_ctl", [
        "-D",
        dataDir,
        "-l",
        path.join(dir, "server.log"),
        "-w",
        "-t",
        "30",
        "-o",
        serverOptions,
        "start",
      ]);
      try {
        await run(pgCtl, ctlArgs);
        break;
      } catch (error) {
        // The port may have been taken between probing and binding: try another.
        if (attempt >= 2) {
          const log = await fs.readFile(path.join(dir, "server.log"), "utf8").catch(() => "");
          throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
        }
      }
    }
    const host = "127.0.0.1";
    return {
      host,
      port,
      url: (database = "postgres") => `postgres://postgres@${host}:${port}/${database}`,
      async stop() {
        forget();
        await stopClusterIn(dir);
      },
    };
  } catch (error) {
    forget();
    await stopClusterIn(dir);
    throw error;
  }
}

export type TestDatabase = { name: string; url: string; drop(): Promise<void> };

async function withAdminClient<T>(clusterUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the cluster (`maintenanceUrl`: a URL from PostgresCluster.url()). */
export async function createTestDatabase(
  maintenanceUrl: string,
  options: { template?: string } = {},
): Promise<TestDatabase> {
  const name = `t_${randomBytes(8).toString("hex")}`;
  const template = options.template ? ` TEMPLATE ${pg.escapeIdentifier(options.template)}` : "";
  await withAdminClient(maintenanceUrl, (client) =>
    client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${template}`),
  );
  const url = new URL(maintenanceUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () =>
      withAdminClient(maintenanceUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
      ).then(() => undefined),
  };
}

/**
 * Databases for test contexts, reused within one process: a released database
 * is emptied (every table but the migrator's, in one TRUNCATE) and handed out
 * again, several times faster than CREATE DATABASE. One that cannot be
 * emptied promptly (a connection left in a transaction) is dropped instead.
 */
export function createDatabaseReuse(maintenanceUrl: string, template: string) {
  const free: TestDatabase[] = [];
  return {
    async acquire(): Promise<{ url: string; release(): Promise<void> }> {
      const database = free.pop() ?? (await createTestDatabase(maintenanceUrl, { template }));
      return {
        url: database.url,
        async release() {
          try {
            await withAdminClient(database.url, async (client) => {
              await client.query("SET lock_timeout = '2s'");
              const { rows } = await client.query<{ name: string }>(
                "select tablename as name from pg_tables where schemaname = 'public' and tablename not like 'kysely_migration%'",
              );
              if (rows.length)
                await client.query(`TRUNCATE ${rows.map((row) => pg.escapeIdentifier(row.name)).join(", ")}`);
            });
            free.push(database);
          } catch {
            await database.drop().catch(() => {});
          }
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Both at once, for servers started as processes (browser tests, the bench)

export type ScaledBackends = {
  cluster: PostgresCluster;
  s3: S3Server;
  /**
   * A fresh database and bucket for servers reached at `siteUrls` (their
   * origins go in the bucket's CORS rule): the settings to start them with
   * (DATABASE_URL, S3_*), and their removal.
   */
  provision(
    siteUrls: string[],
  ): Promise<{ env: Record<string, string>; database: TestDatabase; bucket: TestBucket; remove(): Promise<void> }>;
  stop(): Promise<void>;
};

/**
 * `verifySignatures`: put the verifying front before s3rver (the browser tests do, so a browser's
 * PUT must match what was signed); the bench leaves it out, to measure s3rver alone.
 */
export async function startScaledBackends(options: { verifySignatures?: boolean } = {}): Promise<ScaledBackends> {
  await sweepStaleBackends();
  const verifySignatures = options.verifySignatures ?? false;
  const s3 = await startS3Server({ verifySignatures });
  const cluster = await startPostgresCluster().catch(async (error: unknown) => {
    await s3.stop();
    throw error;
  });
  return {
    cluster,
    s3,
    async provision(siteUrls) {
      const database = await createTestDatabase(cluster.url());
      const siteOrigins = siteUrls.map((url) => new URL(url).origin);
      const bucket = await createTestBucket(s3.endpoint, { siteOrigins }).catch(async (error: unknown) => {
        await database.drop();
        throw error;
      });
      return {
        env: {
          DATABASE_URL: database.url,
          ...s3Env(s3.endpoint, bucket.name),
          // s3rver alone serves everything to anyone: the start-up privacy check would find it public, every time.
          ...(verifySignatures ? {} : { S3_PRIVACY_CHECK: "off" }),
        },
        database,
        bucket,
        async remove() {
          await bucket.remove().catch(() => {});
          await database.drop().catch(() => {});
        },
      };
    },
    async stop() {
      await s3.stop();
      await cluster.stop();
    },
  };
}
