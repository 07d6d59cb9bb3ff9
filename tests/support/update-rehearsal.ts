/**
 * A rehearsal of docs/DEPLOY.md's step 11 on this machine, for tests/e2e/update-operations.spec.ts
 * and `npm run bench -- --only=update`: a deployed checkout (a clone of this one's HEAD, with its
 * node_modules hard-linked and its production build copied), set up as the earlier guide left it;
 * systemd's part played by tests/support/socket-service.pl (the socket held, the unit followed);
 * real Caddy in front with deploy/Caddyfile's proxy directive. Commits for the update are made in an
 * upstream clone, the checkout's origin, which the update fetches from.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { shippedProxyDirective, startCaddy, type Caddy } from "./caddy";
import { freePort } from "./test-server";

const ROOT = path.resolve(".");
const SOCKET_SERVICE = path.join(ROOT, "tests/support/socket-service.pl");
const GIT_IDENTITY = ["-c", "user.name=Cornerstone rehearsal", "-c", "user.email=rehearsal@example.com"];
export const REHEARSAL_TEXT = "Stonework updated while you watched";

function run(cwd: string, argv: string[]): string {
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${argv.join(" ")} failed in ${cwd}:\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

/** Replaces `from` (which must be there) in a file of the upstream clone. */
async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await fs.readFile(file, "utf8");
  if (!text.includes(from))
    throw new Error(`${file} no longer has ${JSON.stringify(from)}: the rehearsal's commit needs a new anchor`);
  await fs.writeFile(file, text.replace(from, to));
}

export type UpdateRun = { code: number | null; output: string };

export type Rehearsal = {
  checkout: string;
  dataDir: string;
  unitFile: string;
  caddyfile: string;
  caddy: Caddy;
  /** A commit that changes the home page's headline and its menu script, and adds migration 9001. */
  commitGoodRelease(): Promise<string>;
  /** A commit whose server exits as it starts. */
  commitFailingRelease(): Promise<string>;
  /**
   * `npm run update` as the guide runs it, with this machine's restart command; `beforeRestart` runs
   * as the restart is asked for, before SIGTERM. The health check's timeout is the guide's (60 s) unless given.
   */
  update(options?: { beforeRestart?: () => Promise<void>; healthTimeoutSeconds?: number }): Promise<UpdateRun>;
  /** What the service manager did: each start and stop, with the time. */
  events(): { at: number; what: string }[];
  enquiryMessages(): string[];
  migrations(): string[];
  stop(): Promise<void>;
};

export async function startRehearsal(): Promise<Rehearsal> {
  if (!existsSync(path.join(ROOT, "build/server/index.js")))
    throw new Error("There is no production build: run npm run build first.");
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-update-rehearsal-"));
  const upstream = path.join(root, "upstream");
  const checkout = path.join(root, "opt-cornerstone");
  const dataDir = path.join(root, "var-lib-cornerstone");
  const stateDir = path.join(root, "systemd");
  const envFile = path.join(root, "cornerstone.env");
  const unitFile = path.join(root, "cornerstone.service");
  const socketFile = path.join(root, "cornerstone.socket");
  const caddyfile = path.join(root, "Caddyfile");
  let holder: ChildProcess | null = null;
  let caddy: Caddy | null = null;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (holder && holder.exitCode === null) {
      const exited = new Promise((resolve) => holder!.once("exit", resolve));
      holder.kill("SIGTERM");
      await exited;
    }
    await caddy?.stop();
    await fs.rm(root, { recursive: true, force: true });
  };
  try {
    // The code as the earlier guide deployed it: a clone, npm ci (here: this checkout's node_modules,
    // hard-linked) and npm run build (this checkout's build of the same commit).
    run(root, ["git", "clone", "--quiet", "--shared", ROOT, upstream]);
    run(root, ["git", "clone", "--quiet", "--shared", upstream, checkout]);
    run(root, ["cp", "-al", await fs.realpath(path.join(ROOT, "node_modules")), path.join(checkout, "node_modules")]);
    run(root, ["cp", "-a", path.join(ROOT, "build"), path.join(checkout, "build")]);
    await fs.mkdir(dataDir, { mode: 0o700 });
    await fs.mkdir(stateDir);

    const nodePort = await freePort();
    const caddyPort = await freePort();
    await fs.writeFile(
      envFile,
      [
        `PORT=${nodePort}`,
        "HOST=127.0.0.1",
        `DATA_DIR=${dataDir}`,
        `SITE_URL=https://127.0.0.1:${caddyPort}`,
        "TRUST_PROXY=loopback",
        "LOG_LEVEL=warn",
        "ADMIN_USERNAME=owner",
        "ADMIN_PASSWORD=correct horse battery staple",
        // Every upload of the load is taken (the day's cap is the site's, not the visitor's).
        "ENQUIRY_PHOTOS_PER_DAY=100000",
        "",
      ].join("\n"),
    );
    // The unit as the earlier guide installed it: the checkout's own build, its own port.
    const node = existsSync("/usr/bin/node") ? "/usr/bin/node" : process.execPath;
    const unit = (await fs.readFile(path.join(ROOT, "deploy/cornerstone.service"), "utf8"))
      .replace("After=network-online.target cornerstone.socket", "After=network-online.target")
      .replace(/^Requires=cornerstone\.socket\n/m, "")
      .replace("WorkingDirectory=/opt/cornerstone/current", `WorkingDirectory=${checkout}`)
      .replace("/opt/cornerstone/current/build/server/index.js", "build/server/index.js")
      .replace("/etc/cornerstone/cornerstone.env", envFile)
      .replace("/usr/bin/node", node);
    await fs.writeFile(unitFile, unit);
    await fs.writeFile(caddyfile, `example.co.nz {\n\treverse_proxy 127.0.0.1:${nodePort}\n}\n`);

    holder = spawn("perl", [SOCKET_SERVICE, "--serve", "127.0.0.1", String(nodePort), unitFile, stateDir], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${nodePort}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline || holder.exitCode !== null) {
        throw new Error(
          `The site did not start:\n${await fs.readFile(path.join(stateDir, "service.log"), "utf8").catch(() => "")}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    caddy = await startCaddy({
      upstream: `127.0.0.1:${nodePort}`,
      port: caddyPort,
      proxyDirective: await shippedProxyDirective(`127.0.0.1:${nodePort}`),
    });
  } catch (error) {
    await stop();
    throw error;
  }

  const commit = (message: string) => {
    run(upstream, ["git", "add", "-A"]);
    run(upstream, ["git", ...GIT_IDENTITY, "commit", "--quiet", "-m", message]);
    return run(upstream, ["git", "rev-parse", "--short", "HEAD"]);
  };
  const readDatabase = <T>(query: string): T[] => {
    const db = new SQLite(path.join(dataDir, "site.db"), { readonly: true });
    try {
      return db.prepare(query).all() as T[];
    } finally {
      db.close();
    }
  };

  return {
    checkout,
    dataDir,
    unitFile,
    caddyfile,
    caddy: caddy!,
    async commitGoodRelease() {
      await edit(
        path.join(upstream, "app/content/sections.ts"),
        "defaultContent: `Stonemasonry & Hard Landscaping in ${region}`",
        `defaultContent: \`${REHEARSAL_TEXT} in \${region}\``,
      );
      await edit(
        path.join(upstream, "app/islands/menu.island.ts"),
        'markIslandMounted("menu");',
        'document.documentElement.dataset.menuRelease = "rehearsal";\nmarkIslandMounted("menu");',
      );
      await fs.writeFile(
        path.join(upstream, "app/db/migrations/9001-update-rehearsal.ts"),
        'import type { Kysely, Migration } from "kysely";\n\nexport const updateRehearsal: Migration = {\n' +
          '  async up(db: Kysely<unknown>) {\n    await db.schema.createTable("update_rehearsal").ifNotExists().addColumn("id", "integer", (c) => c.primaryKey()).execute();\n  },\n' +
          '  async down(db: Kysely<unknown>) {\n    await db.schema.dropTable("update_rehearsal").ifExists().execute();\n  },\n};\n',
      );
      const database = path.join(upstream, "app/db/database.server.ts");
      await edit(
        database,
        'import type { DatabaseSchema } from "./schema";',
        'import { updateRehearsal } from "./migrations/9001-update-rehearsal";\nimport type { DatabaseSchema } from "./schema";',
      );
      await edit(
        database,
        "const MIGRATIONS: Record<string, Migration> = {",
        'const MIGRATIONS: Record<string, Migration> = {\n  "9001-update-rehearsal": updateRehearsal,',
      );
      return commit("Rehearsal: a new headline, a changed menu script and migration 9001");
    },
    async commitFailingRelease() {
      await edit(
        path.join(upstream, "server/index.ts"),
        "await startServer({",
        'console.error("This release cannot start (the rehearsal\'s failing release).");\nprocess.exit(1);\nawait startServer({',
      );
      return commit("Rehearsal: a release whose server exits as it starts");
    },
    async update({ beforeRestart, healthTimeoutSeconds } = {}) {
      await fs.rm(path.join(stateDir, "go"), { force: true });
      await fs.rm(path.join(stateDir, "restart-requested"), { force: true });
      const restart = `perl ${SOCKET_SERVICE} --restart ${stateDir} --after ${path.join(stateDir, "go")}`;
      const child = spawn(
        "npm",
        [
          "run",
          "update",
          "--",
          "--env-file",
          envFile,
          "--restart-command",
          restart,
          "--unit-file",
          unitFile,
          "--socket-file",
          socketFile,
          "--caddyfile",
          caddyfile,
          ...(healthTimeoutSeconds ? ["--health-timeout", String(healthTimeoutSeconds)] : []),
        ],
        { cwd: checkout, stdio: ["ignore", "pipe", "pipe"] },
      );
      let output = "";
      const began = Date.now();
      const take = (chunk: Buffer) => {
        output += chunk;
        // REHEARSAL_LOG=1 shows the update as it goes, each line with the seconds since it began.
        if (process.env.REHEARSAL_LOG) {
          for (const line of chunk.toString().split("\n").filter(Boolean))
            console.error(`[${((Date.now() - began) / 1000).toFixed(1)} s] ${line}`);
        }
      };
      child.stdout.on("data", take);
      child.stderr.on("data", take);
      const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
      // The restart waits for `go`: whatever must be in flight when SIGTERM comes is started first.
      let watching = true;
      const watcher = (async () => {
        while (watching && !existsSync(path.join(stateDir, "restart-requested")))
          await new Promise((resolve) => setTimeout(resolve, 50));
        if (watching) await beforeRestart?.();
        await fs.writeFile(path.join(stateDir, "go"), "");
      })();
      const code = await exited;
      watching = false;
      await watcher;
      return { code, output };
    },
    events() {
      const text = existsSync(path.join(stateDir, "events")) ? readFileSync(path.join(stateDir, "events"), "utf8") : "";
      return text
        .split("\n")
        .filter(Boolean)
        .map((line) => ({ at: Number(line.slice(0, line.indexOf(" "))), what: line.slice(line.indexOf(" ") + 1) }));
    },
    enquiryMessages: () =>
      readDatabase<{ message: string }>("select message from contact_submissions").map((row) => row.message),
    migrations: () =>
      readDatabase<{ name: string }>("select name from kysely_migration order by name").map((row) => row.name),
    stop,
  };
}
