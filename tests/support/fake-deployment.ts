/**
 * A deployed checkout of a small stand-in project, for the tests of `npm run update`'s steps: real
 * git (an upstream repository and a clone of it), real npm ci (one dependency, from a tarball in
 * the repository), and stand-ins for the build, the backup, restore and migrations scripts and the
 * service manager (tests/fixtures/fake-release/). Time is a manual clock that sleeping moves on.
 */
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { runCommand } from "../../scripts/lib/releases/commands";
import type { UpdateContext } from "../../scripts/lib/releases/context";
import { HEALTH_TIMEOUT_MS } from "../../scripts/lib/releases/health";
import { liveRelease } from "../../scripts/lib/releases/layout";

const FIXTURE = path.resolve("tests/fixtures/fake-release");
// The upstream may be the service user's (handDataDirTo): git would refuse it to root.
const GIT_IDENTITY = [
  "-c",
  "user.name=Cornerstone test",
  "-c",
  "user.email=test@example.com",
  "-c",
  "safe.directory=*",
];

function sh(cwd: string, argv: string[]): string {
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${argv.join(" ")} failed in ${cwd}:\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

async function writeFiles(dir: string, files: Record<string, string | null>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    if (content === null) await fs.rm(file, { force: true });
    else {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
    }
  }
}

/** A dependency as npm packs one, so npm ci installs real files from it without a registry. */
async function packDependency(dir: string, version: string): Promise<void> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-fake-dep-"));
  await writeFiles(path.join(work, "package"), {
    // Its install script records who ran it, as any dependency's could run anything.
    "package.json": JSON.stringify({
      name: "fake-dep",
      version,
      main: "index.js",
      scripts: { postinstall: "node -e \"require('fs').writeFileSync('installed-by', String(process.getuid()))\"" },
    }),
    "index.js": `module.exports = "fake-dep ${version}";\n`,
  });
  await fs.mkdir(path.join(dir, "vendor"), { recursive: true });
  sh(work, ["tar", "czf", path.join(dir, `vendor/fake-dep-${version}.tgz`), "package"]);
  await fs.rm(work, { recursive: true, force: true });
}

export function packageJson(dependency: string): string {
  return `${JSON.stringify(
    {
      name: "fake-site",
      version: "1.0.0",
      private: true,
      scripts: {
        build: "node build.mjs",
        backup: "node ops.mjs backup",
        restore: "node ops.mjs restore",
        migrations: "node ops.mjs migrations",
      },
      dependencies: { "fake-dep": `file:vendor/${dependency}` },
    },
    null,
    2,
  )}\n`;
}

/** Made once per test file: the upstream repository, a built clone of it and the data folder. */
export async function createTemplate(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-update-template-"));
  const upstream = path.join(root, "upstream");
  await writeFiles(upstream, {
    "package.json": packageJson("fake-dep-1.0.0.tgz"),
    "build.mjs": await fs.readFile(path.join(FIXTURE, "build.mjs"), "utf8"),
    "ops.mjs": await fs.readFile(path.join(FIXTURE, "ops.mjs"), "utf8"),
    "src/page.js": "export const text = 'first';\n",
    "app/db/migrations/0001-initial.ts": "export {};\n",
    ".gitignore": "node_modules/\n/build/\n/releases/\n/current\n",
  });
  await packDependency(upstream, "1.0.0");
  await packDependency(upstream, "1.0.1");
  sh(upstream, ["npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"]);
  await fs.rm(path.join(upstream, "node_modules"), { recursive: true, force: true });
  sh(upstream, ["git", "init", "--quiet", "--initial-branch=main"]);
  sh(upstream, ["git", "add", "-A"]);
  sh(upstream, ["git", ...GIT_IDENTITY, "commit", "--quiet", "-m", "The first version"]);
  const checkout = path.join(root, "checkout");
  sh(root, ["git", "clone", "--quiet", upstream, checkout]);
  sh(checkout, ["npm", "ci", "--offline", "--no-audit", "--no-fund", "--loglevel=error"]);
  sh(checkout, ["npm", "run", "--silent", "build"]);
  await writeFiles(root, {
    "data/applied.json": JSON.stringify(["0001-initial"]),
    "cornerstone.env": `DATA_DIR=${path.join(root, "data")}\nPORT=3000\nHOST=127.0.0.1\n`,
  });
  // Readable by all, as the guide's root makes them under a login's umask 022, whatever umask the tests run under.
  sh("/", ["chmod", "-R", "u+rwX,go+rX", root]);
  return root;
}

export type ServiceUser = { name: string; uid: number; remove(): void };

/** A throwaway system user standing for the guide's `cornerstone`; null unless this runs as root (only root may make one, or run as one). */
export function createServiceUser(): ServiceUser | null {
  if (process.getuid?.() !== 0) return null;
  const name = `cs-update-${randomBytes(3).toString("hex")}`;
  sh("/", [
    "useradd",
    "--system",
    "--no-create-home",
    "--home-dir",
    "/nonexistent",
    "--shell",
    "/usr/sbin/nologin",
    name,
  ]);
  return { name, uid: Number(sh("/", ["id", "-u", name])), remove: () => void spawnSync("userdel", [name]) };
}

/**
 * DATA_DIR becomes the user's, as on a server set up by the guide, and the folders above the checkout
 * let them in. So does the upstream, which stands for a public repository: git would refuse the user
 * a local one of another's.
 */
export function handDataDirTo(site: FakeDeployment, user: ServiceUser): void {
  sh("/", ["chmod", "755", site.root]);
  sh("/", ["chown", "-R", `${user.name}:`, site.dataDir, site.upstream]);
}

/** A commit that moves fake-dep from 1.0.0 to 1.0.1, with the lock file npm would write: npm ci runs. */
export async function commitDependencyUpgrade(site: FakeDeployment): Promise<string> {
  await site.commit({ "package.json": packageJson("fake-dep-1.0.1.tgz") });
  const lock = readFileSync(path.join(site.upstream, "package-lock.json"), "utf8").replaceAll("1.0.0", "1.0.1");
  const integrity = /"integrity": "([^"]+)"/.exec(lock)![1]!;
  const tarball = readFileSync(path.join(site.upstream, "vendor/fake-dep-1.0.1.tgz"));
  return site.commit({
    "package-lock.json": lock.replace(integrity, `sha512-${createHash("sha512").update(tarball).digest("base64")}`),
  });
}

export type FakeDeployment = {
  root: string;
  upstream: string;
  checkout: string;
  dataDir: string;
  clock: ManualClock;
  /** Everything `npm run update` said, one line each. */
  output: string[];
  context: UpdateContext;
  /** Commits to the upstream repository (null deletes a file); returns the commit's short name. */
  commit(files: Record<string, string | null>, message?: string): Promise<string>;
  live(): Promise<string | null>;
  head(): string;
  /** The releases the service manager started, in order. */
  started(): string[];
  releases(): Promise<string[]>;
  cleanup(): Promise<void>;
};

/** A fresh copy of the template: its checkout runs the checkout's own build (a server set up by the earlier guide). */
export async function createFakeDeployment(template: string): Promise<FakeDeployment> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-update-"));
  sh("/", ["cp", "-a", `${template}/.`, root]);
  const upstream = path.join(root, "upstream");
  const checkout = path.join(root, "checkout");
  const dataDir = path.join(root, "data");
  await fs.writeFile(path.join(root, "cornerstone.env"), `DATA_DIR=${dataDir}\nPORT=3000\nHOST=127.0.0.1\n`);
  sh(checkout, ["git", "remote", "set-url", "origin", upstream]);
  const clock = createManualClock("2026-03-02T03:00:00.000Z");
  const output: string[] = [];
  const started = () =>
    existsSync(path.join(dataDir, "service.log"))
      ? readFileSync(path.join(dataDir, "service.log"), "utf8").split("\n").filter(Boolean)
      : [];
  const context: UpdateContext = {
    checkout,
    envFile: path.join(root, "cornerstone.env"),
    dataDirUser: null,
    healthUrl: "http://127.0.0.1:3000/healthz",
    // The command's default (scripts/update.ts): the tests check it is the guide's minute.
    healthTimeoutMs: HEALTH_TIMEOUT_MS,
    restartCommand: `node ${path.join(FIXTURE, "service.mjs")} ${checkout} ${dataDir}`,
    serviceFiles: {
      unitFile: path.join(root, "none.service"),
      socketFile: path.join(root, "none.socket"),
      caddyfile: path.join(root, "NoCaddyfile"),
    },
    listen: { host: "127.0.0.1", port: 3000 },
    clock,
    sleep: async (ms) => void clock.advance(ms),
    // The service answers 200 unless the release it last started has an UNHEALTHY file: nothing answers
    // (a server that exits at start), or the status the file holds (a server that fails every request).
    probe: async () => {
      const release = started().at(-1);
      if (!release) return null;
      const unhealthy = path.join(checkout, "releases", release, "UNHEALTHY");
      return existsSync(unhealthy) ? Number(readFileSync(unhealthy, "utf8")) || null : 200;
    },
    run: (argv, options) => runCommand(argv, { ...options, quiet: true }),
    log: (line) => output.push(line),
  };
  return {
    root,
    upstream,
    checkout,
    dataDir,
    clock,
    output,
    context,
    async commit(files, message = "A change") {
      await writeFiles(upstream, files);
      sh(upstream, ["git", ...GIT_IDENTITY, "add", "-A"]);
      sh(upstream, ["git", ...GIT_IDENTITY, "commit", "--quiet", "-m", message]);
      // Readable by the service's user, as a public repository is, whatever umask the tests run under.
      sh("/", ["chmod", "-R", "go+rX", upstream]);
      return sh(upstream, ["git", ...GIT_IDENTITY, "rev-parse", "--short", "HEAD"]);
    },
    live: () => liveRelease(checkout),
    head: () => sh(checkout, ["git", "rev-parse", "--short", "HEAD"]),
    started,
    releases: async () =>
      (await fs.readdir(path.join(checkout, "releases"), { withFileTypes: true }))
        .filter((e) => e.isDirectory() && !e.name.startsWith("."))
        .map((e) => e.name)
        .sort(),
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}
