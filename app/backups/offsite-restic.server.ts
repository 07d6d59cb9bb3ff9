import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Env } from "~/env.server";
import { openObjectStorage, s3ConfigOf, type StorageConfig } from "~/storage/open-storage.server";
import { backupsDirOf } from "./backup-files.server";

/**
 * restic (Debian's 0.14), driven from this module alone (decision 0070): the passphrase on its standard input, the
 * process's environment (SSL_CERT_FILE, restic's credential variables), UTC (the keep policy's periods), the cache
 * under DATA_DIR; --json where 0.14 has it.
 */
export const RESTIC_MISSING =
  "restic is not installed on this server, so no copy can leave it: install it with apt-get install restic";
export const REPOSITORY_PREFIX = "cornerstone-backups/restic";
/** Every copy's tag: the keep policy and the listings see only these. */
const TAG = "cornerstone";

export type Snapshot = { id: string; short_id: string; time: string; hostname: string };
type Ran = { code: number; stdout: string; stderr: string };
/** Where the repository is; `files`: its files through the storage adapter, for a folder or BACKUP_S3_*. */
type OffsiteLocation = {
  repository: string;
  options: string[];
  env: Record<string, string>;
  files: { config: StorageConfig; prefix: string } | null;
};

/** Refused or failed; the message says why, for whoever runs the site. */
export class ResticError extends Error {
  override name = "ResticError";
}

export function offsiteLocation(env: Env): OffsiteLocation | null {
  const { BACKUP_OFFSITE_REPOSITORY: repository, BACKUP_S3_REGION: region, BACKUP_S3_ENDPOINT: endpoint } = env;
  const local = { kind: "local", rootDir: repository ?? "", signingSecret: "-".repeat(32) } as const;
  const files = path.isAbsolute(local.rootDir) ? { config: local, prefix: "" } : null;
  if (repository) return { repository, options: [], env: {}, files };
  if (!env.BACKUP_S3_BUCKET) return null;
  const bucket = s3ConfigOf({
    bucket: env.BACKUP_S3_BUCKET,
    region,
    endpoint,
    forcePathStyle: env.BACKUP_S3_FORCE_PATH_STYLE,
    accessKeyId: env.BACKUP_S3_ACCESS_KEY_ID,
    secretAccessKey: env.BACKUP_S3_SECRET_ACCESS_KEY,
  });
  const keys = bucket.credentials;
  const pathStyle = env.BACKUP_S3_FORCE_PATH_STYLE ? ["-o", "s3.bucket-lookup=path"] : [];
  return {
    repository: `s3:${endpoint?.replace(/\/+$/, "") ?? "s3.amazonaws.com"}/${bucket.bucket}/${REPOSITORY_PREFIX}`,
    options: [...(region ? ["-o", `s3.region=${region}`] : []), ...pathStyle],
    env: keys ? { AWS_ACCESS_KEY_ID: keys.accessKeyId, AWS_SECRET_ACCESS_KEY: keys.secretAccessKey } : {},
    files: { config: bucket, prefix: `${REPOSITORY_PREFIX}/` },
  };
}

/** Whether `restic` is on the PATH (looked at each time: installing it needs no restart). */
export const resticInstalled = () =>
  (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(path.join(dir, "restic")));

/** The repository for people (and logs): a URL's user and password left out. */
export const repositoryName = (env: Env) => offsiteLocation(env)?.repository.replace(/\/\/[^/@]*@/, "//") ?? "";

/** Why no copy can be made or read here (no repository, no passphrase, no restic), or null. */
export function offsiteProblem(env: Env, passphrase = env.BACKUP_PASSPHRASE): string | null {
  if (!offsiteLocation(env))
    return "This needs an off-site repository: set BACKUP_S3_BUCKET and its BACKUP_S3_* settings, or BACKUP_OFFSITE_REPOSITORY (docs/DEPLOY.md, step 9)";
  if (!passphrase)
    return "No copy leaves the server without a backup passphrase: add BACKUP_PASSPHRASE to the settings (docs/DEPLOY.md, step 9)";
  return resticInstalled() ? null : RESTIC_MISSING;
}

/** restic for this site's repository, or a ResticError saying what is missing. */
export function resticFor(env: Env, passphrase: string | undefined) {
  const problem = offsiteProblem(env, passphrase);
  if (problem) throw new ResticError(problem);
  const cacheDir = path.join(backupsDirOf(env.DATA_DIR), ".restic-cache");
  return openRestic(offsiteLocation(env)!, { passphrase: passphrase!, cacheDir, name: repositoryName(env) });
}

const jsonLines = (text: string) => text.split("\n").flatMap((line) => (/^[[{]/.test(line) ? [JSON.parse(line)] : []));

/** restic's own words: its Fatal lines, else its first lines. */
function said({ stderr }: Ran): string {
  const lines = stderr.split("\n").filter((line) => line.trim() && !/retrying after/.test(line));
  const fatal = lines.filter((line) => line.startsWith("Fatal:"));
  return (fatal.length ? fatal : lines.slice(0, 4)).join(" ").replace(/Fatal: /g, "");
}

/** A restic key file is JSON with these; a file under keys/ without them stops restic from opening the repository. */
const isKey = (text: string) =>
  ["kdf", "salt", "data"].every((field) => new RegExp(`^\\s*\\{.*"${field}"\\s*:\\s*"`, "s").test(text));

function openRestic(location: OffsiteLocation, settings: { passphrase: string; cacheDir: string; name: string }) {
  const where = `the off-site repository ${settings.name}`;
  const run = (args: string[], signal?: AbortSignal): Promise<Ran> =>
    new Promise((resolve, reject) => {
      const { RESTIC_PASSWORD: _p, RESTIC_PASSWORD_FILE: _f, RESTIC_PASSWORD_COMMAND: _c, ...inherited } = process.env;
      const child = spawn("restic", [...location.options, "--cache-dir", settings.cacheDir, ...args], {
        env: { ...inherited, ...location.env, RESTIC_REPOSITORY: location.repository, TZ: "UTC" },
      });
      let [stdout, stderr] = ["", ""];
      child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
      child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr = (stderr + text).slice(-20_000)));
      // Twice: `init` asks for it twice. restic may end before reading it.
      child.stdin.on("error", () => {}).end(`${settings.passphrase}\n${settings.passphrase}\n`);
      // SIGINT: restic removes its lock before it exits.
      const stop = () => child.kill("SIGINT");
      signal?.addEventListener("abort", stop, { once: true });
      child.once("error", (error: NodeJS.ErrnoException) =>
        reject(error.code === "ENOENT" ? new ResticError(RESTIC_MISSING) : error),
      );
      child.once("close", (code) => {
        signal?.removeEventListener("abort", stop);
        if (signal?.aborted) reject(signal.reason);
        else resolve({ code: code ?? 1, stdout, stderr });
      });
    });

  /** What is under keys/ but is no key (restic stops at the first it meets), said in plain words; or null. */
  async function junkKeys(): Promise<string | null> {
    if (!location.files) return null;
    const { config, prefix } = location.files;
    const storage = await openObjectStorage(config);
    try {
      const junk: string[] = [];
      for (const { key } of await storage.list(`${prefix}keys/`))
        if (!isKey((await storage.readHead(key, 65_536))?.toString("utf8") ?? "")) junk.push(key.slice(prefix.length));
      return junk.length
        ? `${where} holds ${junk.join(", ")}, which restic cannot read as a key: restic cannot open the repository ` +
            "while it is there. Remove it from the store (anyone who can write there could have put it there)."
        : null;
    } finally {
      await storage.close();
    }
  }

  async function fail(what: string, ran: Ran): Promise<never> {
    const junk = await junkKeys().catch(() => null);
    if (junk) throw new ResticError(junk);
    if (/wrong password or no key found/.test(ran.stderr))
      throw new ResticError(
        `The backup passphrase (BACKUP_PASSPHRASE) does not open ${where}. If the passphrase was changed, ` +
          "change the repository's too, with restic key passwd (docs/DEPLOY.md).",
      );
    throw new ResticError(`${what} ${where}: ${said(ran)}`);
  }
  const succeed = async (what: string, args: string[], signal?: AbortSignal) => {
    const ran = await run(args, signal);
    return ran.code === 0 ? jsonLines(ran.stdout) : fail(what, ran);
  };

  return {
    where,
    /** Removes locks left by a copy that was killed (never a running one's); `create`: makes the repository if there is none. */
    async open(create: boolean, signal?: AbortSignal): Promise<void> {
      const unlocked = await run(["unlock"], signal);
      if (unlocked.code === 0) return;
      const made = create ? await run(["init"], signal) : null;
      if (made?.code === 0) return;
      if (made && !/already exists/.test(made.stderr)) await fail("Could not create", made);
      await fail("Could not open", unlocked);
    },
    /** A snapshot of `paths` at `at`: from `parent` (unchanged files are not read again), or read whole. */
    async backup(paths: string[], options: { parent: string | null; at: Date; signal?: AbortSignal }) {
      const time = options.at.toISOString().slice(0, 19).replace("T", " ");
      const parent = options.parent ? ["--parent", options.parent] : ["--force"];
      const args = ["backup", "--json", "--quiet", "--tag", TAG, "--time", time, ...parent, ...paths];
      const summary = (await succeed("restic could not copy to", args, options.signal)).at(-1);
      return { id: summary.snapshot_id as string, addedBytes: summary.data_added as number };
    },
    /** The keep policy, then a prune; its failure is returned, not thrown (the copy itself was made). */
    async forget(policy: { hourly: number; daily: number; monthly: number }, signal?: AbortSignal) {
      const keep = { last: 1, ...policy };
      const rules = Object.entries(keep).flatMap(([period, count]) => [`--keep-${period}`, `${count}`]);
      const args = ["forget", "--json", "--quiet", "--tag", TAG, "--group-by", "tags", ...rules, "--prune"];
      const ran = await run(args, signal);
      const groups = (jsonLines(ran.stdout)[0] ?? []) as { keep: Snapshot[] | null; remove: Snapshot[] | null }[];
      return {
        kept: groups.flatMap((group) => group.keep ?? []),
        removed: groups.reduce((sum, group) => sum + (group.remove?.length ?? 0), 0),
        problem: ran.code === 0 ? null : said(ran),
      };
    },
    /** This site's snapshots, oldest first (restic leaves out one it cannot read). */
    async snapshots() {
      const [listed] = await succeed("Could not list", ["snapshots", "--json", "--tag", TAG]);
      return ((listed ?? []) as Snapshot[]).sort((a, b) => a.time.localeCompare(b.time));
    },
    /** What a restore of the snapshot writes, in bytes. */
    size: async (id: string) => (await succeed("Could not read", ["stats", "--json", id]))[0].total_size as number,
    restore: (id: string, target: string) =>
      succeed(`restic could not restore ${id} from`, ["restore", id, "--target", target]),
    /** `restic check` (with `readData`, `--read-data`) and the keys: what is wrong, named. */
    async check(readData: boolean): Promise<string[]> {
      const ran = await run(readData ? ["check", "--read-data"] : ["check"]);
      if (ran.code !== 0 && !/repository contains errors/.test(ran.stderr)) await fail("Could not check", ran);
      // Only a failed check has these lines.
      const problems = ran.stderr.split("\n").flatMap((line) => {
        const snapshot = /load <snapshot\/([0-9a-f]+)>: (.*)/.exec(line);
        if (snapshot)
          return [
            `snapshots/${snapshot[1]}… cannot be read (${snapshot[2]}): it was not made with this repository's ` +
              "key, so someone who can write to the store may have put it there. Remove it.",
          ];
        const named = /^(pack|tree|blob) [0-9a-f]{8}|^error/i.test(line) && !/retrying|snapshot\//.test(line);
        return named ? [line.replace(/^pack ([0-9a-f]{2})/, "pack data/$1/$1")] : [];
      });
      const unlooked = (error: Error) => `The files under keys/ could not be looked at: ${error.message}`;
      const junk = await junkKeys().catch(unlooked);
      return junk ? [...problems, junk] : problems;
    },
  };
}
