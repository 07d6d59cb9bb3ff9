import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { Env } from "~/env.server";
import { openObjectStorage, s3ConfigOf, type StorageConfig } from "~/storage/open-storage.server";

/**
 * restic (Debian's 0.14), driven from this module alone (decision 0070): the passphrase on its
 * standard input, the process's environment (SSL_CERT_FILE, restic's credential variables), UTC
 * (the keep policy's periods), the cache under DATA_DIR; --json where 0.14 has it.
 */
export const RESTIC_MISSING =
  "restic is not installed on this server, so no copy can leave it: install it with apt-get install restic";
export const REPOSITORY_PREFIX = "cornerstone-backups/restic";
/** Every copy's tag: the keep policy and the listings see only these. */
const TAG = "cornerstone";

export type Snapshot = { id: string; short_id: string; time: string; hostname: string };
type Ran = { code: number; stdout: string; stderr: string };
/** Where the repository is; `files`: its files through the storage adapter, for a folder or BACKUP_S3_*. */
export type OffsiteLocation = {
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
  const repository = env.BACKUP_OFFSITE_REPOSITORY;
  if (repository) {
    const folder = { kind: "local", rootDir: repository, signingSecret: "-".repeat(32) } as const;
    return {
      repository,
      options: [],
      env: {},
      files: path.isAbsolute(repository) ? { config: folder, prefix: "" } : null,
    };
  }
  if (!env.BACKUP_S3_BUCKET) return null;
  const bucket = s3ConfigOf({
    bucket: env.BACKUP_S3_BUCKET,
    region: env.BACKUP_S3_REGION,
    endpoint: env.BACKUP_S3_ENDPOINT,
    forcePathStyle: env.BACKUP_S3_FORCE_PATH_STYLE,
    accessKeyId: env.BACKUP_S3_ACCESS_KEY_ID,
    secretAccessKey: env.BACKUP_S3_SECRET_ACCESS_KEY,
  });
  const keys = bucket.credentials;
  return {
    repository: `s3:${env.BACKUP_S3_ENDPOINT?.replace(/\/+$/, "") ?? "s3.amazonaws.com"}/${bucket.bucket}/${REPOSITORY_PREFIX}`,
    options: [
      ...(env.BACKUP_S3_REGION ? ["-o", `s3.region=${env.BACKUP_S3_REGION}`] : []),
      ...(env.BACKUP_S3_FORCE_PATH_STYLE ? ["-o", "s3.bucket-lookup=path"] : []),
    ],
    env: keys ? { AWS_ACCESS_KEY_ID: keys.accessKeyId, AWS_SECRET_ACCESS_KEY: keys.secretAccessKey } : {},
    files: { config: bucket, prefix: `${REPOSITORY_PREFIX}/` },
  };
}

/** The repository for people (and logs): a URL's user and password left out. */
export const repositoryName = (location: OffsiteLocation) => location.repository.replace(/\/\/[^/@]*@/, "//");

/** Whether `restic` is on the PATH (looked at each time: installing it needs no restart). */
export const resticInstalled = () =>
  (process.env.PATH ?? "").split(":").some((dir) => {
    try {
      return accessSync(path.join(dir, "restic"), constants.X_OK) === undefined;
    } catch {
      return false;
    }
  });

const jsonLines = (text: string) => text.split("\n").flatMap((line) => (/^[[{]/.test(line) ? [JSON.parse(line)] : []));

/** restic's own words: its Fatal lines, else its first lines. */
function said({ stderr }: Ran): string {
  const lines = stderr.split("\n").filter((line) => line.trim() && !/retrying after/.test(line));
  const fatal = lines.filter((line) => line.startsWith("Fatal:"));
  return (fatal.length ? fatal : lines.slice(0, 4)).join(" ").replace(/Fatal: /g, "");
}

/** A restic key file is JSON with these; a file under keys/ without them stops restic from opening the repository. */
function isKey(text: string): boolean {
  try {
    const key = JSON.parse(text) as Record<string, unknown>;
    return ["kdf", "salt", "data"].every((field) => typeof key[field] === "string");
  } catch {
    return false;
  }
}

export type Restic = ReturnType<typeof openRestic>;

export function openRestic(location: OffsiteLocation, settings: { passphrase: string; cacheDir: string }) {
  const where = `the off-site repository ${repositoryName(location)}`;
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

  /** The files under keys/ that are not keys (restic stops at the first it meets), read through the storage adapter. */
  async function junkKeys(): Promise<string[]> {
    if (!location.files) return [];
    const { config, prefix } = location.files;
    const storage = await openObjectStorage(config);
    try {
      const junk: string[] = [];
      for (const { key, bytes } of await storage.list(`${prefix}keys/`)) {
        const object = bytes < 65_536 ? await storage.read(key) : null;
        const text = object ? Buffer.concat(await object.stream.toArray()).toString("utf8") : "";
        if (!isKey(text)) junk.push(key.slice(prefix.length));
      }
      return junk;
    } finally {
      await storage.close();
    }
  }
  const junkMessage = (files: string[]) =>
    `${where} holds ${files.join(", ")}, which restic cannot read as a key: restic cannot open the repository ` +
    "while it is there. Remove it from the store (anyone who can write there could have put it there).";

  async function fail(what: string, ran: Ran): Promise<never> {
    const junk = await junkKeys().catch(() => []);
    if (junk.length) throw new ResticError(junkMessage(junk));
    if (/wrong password or no key found/.test(ran.stderr))
      throw new ResticError(
        `The backup passphrase (BACKUP_PASSPHRASE) does not open ${where}. If the passphrase was changed, ` +
          "change the repository's too, with restic key passwd (docs/DEPLOY.md).",
      );
    throw new ResticError(`${what} ${where}: ${said(ran)}`);
  }
  const succeed = async (what: string, args: string[], signal?: AbortSignal) => {
    const ran = await run(args, signal);
    return ran.code === 0 ? ran : fail(what, ran);
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
      const summary = jsonLines((await succeed("restic could not copy to", args, options.signal)).stdout).at(-1);
      const { snapshot_id: id, data_added: addedBytes } = summary as { snapshot_id: string; data_added: number };
      return { id, addedBytes };
    },
    /** The keep policy, then a prune; its failure is returned, not thrown (the copy itself was made). */
    async forget(policy: { hourly: number; daily: number; monthly: number }, signal?: AbortSignal) {
      const keep = { last: 1, ...policy };
      const rules = Object.entries(keep).flatMap(([period, count]) => [`--keep-${period}`, String(count)]);
      const ran = await run(
        ["forget", "--json", "--quiet", "--tag", TAG, "--group-by", "tags", ...rules, "--prune"],
        signal,
      );
      const groups = (jsonLines(ran.stdout)[0] ?? []) as { keep: Snapshot[] | null; remove: Snapshot[] | null }[];
      return {
        kept: groups.flatMap((group) => group.keep ?? []),
        removed: groups.reduce((sum, group) => sum + (group.remove?.length ?? 0), 0),
        problem: ran.code === 0 ? null : said(ran),
      };
    },
    /** This site's snapshots, oldest first (restic leaves out one it cannot read). */
    async snapshots(): Promise<Snapshot[]> {
      const ran = await succeed("Could not list", ["snapshots", "--json", "--tag", TAG]);
      return ((jsonLines(ran.stdout)[0] ?? []) as Snapshot[]).sort((a, b) => a.time.localeCompare(b.time));
    },
    /** What a restore of the snapshot writes, in bytes. */
    size: async (id: string) =>
      (jsonLines((await succeed("Could not read", ["stats", "--json", id])).stdout)[0] as { total_size: number })
        .total_size,
    restore: (id: string, target: string) =>
      succeed(`restic could not restore ${id} from`, ["restore", id, "--target", target]),
    /** `restic check` (then, with `readData` and when that passed, `--read-data`) and the keys: what is wrong, named. */
    async check(readData: boolean): Promise<string[]> {
      const problems: string[] = [];
      for (const args of readData ? [["check"], ["check", "--read-data"]] : [["check"]]) {
        const ran = await run(args);
        if (ran.code === 0) continue;
        if (!/repository contains errors/.test(ran.stderr)) await fail("Could not check", ran);
        for (const line of ran.stderr.split("\n")) {
          const snapshot = /load <snapshot\/([0-9a-f]+)>: (.*)/.exec(line);
          if (snapshot)
            problems.push(
              `snapshots/${snapshot[1]}… cannot be read (${snapshot[2]}): it was not made with this repository's ` +
                "key, so someone who can write to the store may have put it there. Remove it.",
            );
          else if (/^(pack|tree|blob) [0-9a-f]{8}|^error/i.test(line) && !/retrying|snapshot\//.test(line))
            problems.push(line.replace(/^pack ([0-9a-f]{2})/, "pack data/$1/$1"));
        }
        break;
      }
      const junk = await junkKeys().catch((error: Error) => {
        problems.push(`The files under keys/ could not be looked at: ${error.message}`);
        return [];
      });
      return junk.length ? [...problems, junkMessage(junk)] : problems;
    },
  };
}
