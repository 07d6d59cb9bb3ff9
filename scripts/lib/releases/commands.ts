/**
 * The commands `npm run update` runs: each one's output goes to the console as it comes (npm ci and
 * the build print their own progress) and is kept for reading its results.
 */
import { spawn, spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

export type CommandResult = { status: number; output: string };

export type RunOptions = {
  cwd: string;
  /** Runs it as this user (`runuser -u USER --`), as the service runs: the scripts that open DATA_DIR. */
  asUser?: string | null;
  /** Prefix for each echoed line; output is not echoed with `quiet`. */
  quiet?: boolean;
  env?: Record<string, string>;
};

export type CommandRunner = (argv: string[], options: RunOptions) => Promise<CommandResult>;

function asUser(argv: string[], user: string | null | undefined): string[] {
  return user ? ["runuser", "-u", user, "--", ...argv] : argv;
}

/** Spawns argv[0] with the rest as arguments (no shell), echoing and collecting its output. */
export const runCommand: CommandRunner = (argv, options) => {
  const full = asUser(argv, options.asUser);
  // Another user gets its own npm settings, never root's (npm run update passes on npm_config_cache=/root/.npm and root's .npmrc).
  const inherited = Object.entries(process.env).filter(([name]) => !options.asUser || !/^npm_/i.test(name));
  const env = { ...Object.fromEntries(inherited), ...options.env };
  return new Promise((resolve) => {
    const child = spawn(full[0]!, full.slice(1), { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const take = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      if (!options.quiet) stream.write(chunk);
    };
    child.stdout.on("data", take(process.stdout));
    child.stderr.on("data", take(process.stderr));
    child.once("error", (error) => resolve({ status: 127, output: `${output}${error.message}\n` }));
    child.once("close", (code, signal) => resolve({ status: code ?? (signal ? 128 : 1), output }));
  });
};

/** A shell command line (--restart-command), run by sh as systemctl would be. */
export function shell(command: string): string[] {
  return ["sh", "-c", command];
}

/**
 * Who must run the scripts that open DATA_DIR: its owner when this runs as root and someone else owns
 * it (files root wrote there would lock the site out); otherwise nobody else (null).
 */
export function dataDirUser(dataDir: string, uid = process.getuid?.()): string | null {
  if (uid !== 0) return null;
  let owner: number;
  try {
    owner = statSync(dataDir).uid;
  } catch {
    return null;
  }
  if (owner === 0) return null;
  const name = spawnSync("id", ["-nu", String(owner)], { encoding: "utf8" }).stdout.trim();
  return name || String(owner);
}

/** `git …` in a repository, quietly (as `user` when given); throws with git's own message when it fails. */
export async function git(
  repository: string,
  args: string[],
  run: CommandRunner = runCommand,
  user?: string | null,
): Promise<string> {
  const result = await run(["git", ...args], { cwd: repository, asUser: user, quiet: true });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.output.trim()}`);
  return result.output.trim();
}

/** Writes the files of `commit` (as the repository has them) into `dir`, which exists and is empty, as `user` when given. */
export async function exportCommit(
  repository: string,
  commit: string,
  dir: string,
  user?: string | null,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const [git, ...gitArgs] = asUser(["git", "archive", "--format=tar", commit], user);
    const archive = spawn(git!, gitArgs, { cwd: repository, stdio: ["ignore", "pipe", "pipe"] });
    const [tar, ...tarArgs] = asUser(["tar", "-x", "-C", dir], user);
    const extract = spawn(tar!, tarArgs, { stdio: ["pipe", "ignore", "pipe"] });
    let errors = "";
    archive.stderr.on("data", (chunk) => (errors += chunk));
    extract.stderr.on("data", (chunk) => (errors += chunk));
    archive.stdout.pipe(extract.stdin);
    let pending = 2;
    let failed = false;
    const done = (name: string) => (code: number | null) => {
      if (code !== 0) failed = true;
      if (code !== 0 && !errors) errors = `${name} exited with ${code}`;
      if (--pending === 0) {
        if (failed) reject(new Error(`could not write the files of ${commit} into ${dir}: ${errors.trim()}`));
        else resolve();
      }
    };
    archive.once("close", done("git archive"));
    extract.once("close", done("tar"));
  });
}

/** Tools' caches inside node_modules, which they rewrite in place: never shared between releases. */
const MODULE_CACHES = [".vite", ".vite-temp", ".cache"];

/**
 * A copy of a folder whose files are hard links to the originals: seconds for node_modules' tens of
 * thousands of files, and no more room on disk. Safe because nothing writes into an installed file
 * (npm ci replaces node_modules whole); the caches tools rewrite are left out.
 */
export async function linkCopy(from: string, to: string, run: CommandRunner = runCommand): Promise<void> {
  const result = await run(["cp", "-al", from, to], { cwd: "/", quiet: true });
  if (result.status !== 0) throw new Error(`cp -al ${from} ${to} failed: ${result.output.trim()}`);
  for (const cache of MODULE_CACHES) await fs.rm(path.join(to, cache), { recursive: true, force: true });
}
