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

/** Spawns argv[0] with the rest as arguments (no shell), echoing and collecting its output. */
export const runCommand: CommandRunner = (argv, options) => {
  const full = options.asUser ? ["runuser", "-u", options.asUser, "--", ...argv] : argv;
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

/** `git …` in the checkout, quietly; throws with git's own message when it fails. */
export async function git(checkout: string, args: string[], run: CommandRunner = runCommand): Promise<string> {
  const result = await run(["git", ...args], { cwd: checkout, quiet: true });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.output.trim()}`);
  return result.output.trim();
}

/** Writes the files of `commit` (as git has them) into `dir`, which must not exist yet. */
export async function exportCommit(checkout: string, commit: string, dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const archive = spawn("git", ["archive", "--format=tar", commit], {
      cwd: checkout,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const extract = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
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
 * (npm ci replaces node_modules whole); for node_modules, the caches tools rewrite are left out.
 */
export async function linkCopy(from: string, to: string, run: CommandRunner = runCommand): Promise<void> {
  const result = await run(["cp", "-al", from, to], { cwd: "/", quiet: true });
  if (result.status !== 0) throw new Error(`cp -al ${from} ${to} failed: ${result.output.trim()}`);
  if (path.basename(to) === "node_modules" || path.basename(to) === "node_modules.next") {
    for (const cache of MODULE_CACHES) await fs.rm(path.join(to, cache), { recursive: true, force: true });
  }
}

/**
 * A release the service user built becomes root's and writable by root only, before anything else
 * reads it as root or runs it: the user cannot change the code the site (and, by the checkout's
 * hard-linked node_modules, root) runs. -h changes links themselves, never what they point at.
 */
export async function takeBack(dir: string, run: CommandRunner): Promise<void> {
  for (const argv of [
    ["chown", "-R", "-h", "0:0", dir],
    ["chmod", "-R", "go-w", dir],
  ]) {
    const result = await run(argv, { cwd: "/", quiet: true });
    if (result.status !== 0) throw new Error(`${argv.join(" ")} failed: ${result.output.trim()}`);
  }
}
