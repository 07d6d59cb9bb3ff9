/**
 * The first `npm run update` on a server set up by the earlier guide converts it: the unit must run
 * the live release through `current` and take its port from cornerstone.socket, and Caddy must hold
 * and retry requests while Node restarts. This works out the lines to change, prints them, and writes
 * them only when it runs as root and may write the files.
 */
import { constants as fsConstants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

export type ServiceFiles = { unitFile: string; socketFile: string; caddyfile: string };

export const SYSTEM_SERVICE_FILES: ServiceFiles = {
  unitFile: "/etc/systemd/system/cornerstone.service",
  socketFile: "/etc/systemd/system/cornerstone.socket",
  caddyfile: "/etc/caddy/Caddyfile",
};

export const CADDY_RETRY_LINES = [
  "lb_try_duration 30s",
  "lb_try_interval 250ms",
  "transport http {",
  "\tkeepalive off",
  "}",
];

export type LineChange = { before: string | null; after: string };
export type FilePlan = { file: string; changes: LineChange[]; text: string };
export type ServicePlan = { unit: FilePlan | null; socket: FilePlan | null; caddy: FilePlan | null };

const SERVER_ENTRY = "build/server/index.js";

/** The unit's lines as they must be: WorkingDirectory= and ExecStart= through `current`, the socket required. */
export function convertUnit(text: string, checkout: string): { changes: LineChange[]; text: string } {
  const lines = text.split("\n");
  const changes: LineChange[] = [];
  const replace = (index: number, after: string) => {
    if (lines[index] === after) return;
    changes.push({ before: lines[index]!, after });
    lines[index] = after;
  };
  const current = path.join(checkout, "current");
  lines.forEach((line, index) => {
    if (/^After=/.test(line) && !/\bcornerstone\.socket\b/.test(line)) replace(index, `${line} cornerstone.socket`);
    if (/^WorkingDirectory=/.test(line)) replace(index, `WorkingDirectory=${current}`);
    if (/^ExecStart=/.test(line)) {
      const words = line
        .split(" ")
        .map((word) => (word.endsWith(SERVER_ENTRY) ? path.join(current, SERVER_ENTRY) : word));
      replace(index, words.join(" "));
    }
  });
  const unitEnd = (() => {
    const start = lines.indexOf("[Unit]");
    let end = start;
    for (let i = start + 1; i < lines.length && !/^\[/.test(lines[i]!); i++) if (lines[i]!.trim()) end = i;
    return end;
  })();
  if (unitEnd >= 0) {
    const additions: string[] = [];
    if (!lines.some((line) => /^After=/.test(line))) additions.push("After=cornerstone.socket");
    if (!lines.some((line) => /^Requires=.*\bcornerstone\.socket\b/.test(line)))
      additions.push("Requires=cornerstone.socket");
    lines.splice(unitEnd + 1, 0, ...additions);
    for (const addition of additions) changes.push({ before: null, after: addition });
  }
  return { changes, text: lines.join("\n") };
}

/** Each `reverse_proxy` to the site's port, with Caddy's retry lines added to its block. */
export function convertCaddyfile(text: string, port: number): { changes: LineChange[]; text: string } {
  if (/\blb_try_duration\b/.test(text)) return { changes: [], text };
  const changes: LineChange[] = [];
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const match = /^(\s*)reverse_proxy\s+(.*?)\s*(\{)?\s*$/.exec(line);
    if (!match || !new RegExp(`:${port}\\b`).test(match[2]!)) {
      out.push(line);
      continue;
    }
    const [, indent, upstreams, brace] = match as unknown as [string, string, string, string | undefined];
    const added = CADDY_RETRY_LINES.map((retry) => `${indent}\t${retry}`);
    if (brace) {
      out.push(line, ...added);
      changes.push({ before: line, after: [line, ...added].join("\n") });
    } else {
      const block = [`${indent}reverse_proxy ${upstreams} {`, ...added, `${indent}}`];
      out.push(...block);
      changes.push({ before: line, after: block.join("\n") });
    }
  }
  return { changes, text: out.join("\n") };
}

async function readIfThere(file: string): Promise<string | null> {
  return fs.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
}

/**
 * What must change on this server. No unit file: not run by systemd here (another service manager),
 * so nothing to say about units; no Caddyfile: no Caddy here.
 */
export async function planServiceFiles(
  checkout: string,
  files: ServiceFiles,
  listen: { host: string; port: number },
): Promise<ServicePlan> {
  const plan: ServicePlan = { unit: null, socket: null, caddy: null };
  const unit = await readIfThere(files.unitFile);
  if (unit !== null) {
    const converted = convertUnit(unit, checkout);
    if (converted.changes.length) plan.unit = { file: files.unitFile, ...converted };
    if ((await readIfThere(files.socketFile)) === null) {
      const shipped = await fs.readFile(path.join(checkout, "deploy/cornerstone.socket"), "utf8");
      const text = shipped.replace(/^ListenStream=.*$/m, `ListenStream=${listen.host}:${listen.port}`);
      plan.socket = {
        file: files.socketFile,
        changes: [{ before: null, after: `a new file, as ${path.join(checkout, "deploy/cornerstone.socket")}` }],
        text,
      };
    }
  }
  const caddyfile = await readIfThere(files.caddyfile);
  if (caddyfile !== null) {
    const converted = convertCaddyfile(caddyfile, listen.port);
    if (converted.changes.length) plan.caddy = { file: files.caddyfile, ...converted };
  }
  return plan;
}

export function describePlan(plan: ServicePlan): string[] {
  const lines: string[] = [];
  for (const item of [plan.unit, plan.socket, plan.caddy]) {
    if (!item) continue;
    lines.push(`  ${item.file}:`);
    for (const change of item.changes) {
      if (change.before !== null) lines.push(...change.before.split("\n").map((line) => `    - ${line}`));
      lines.push(...change.after.split("\n").map((line) => `    + ${line}`));
    }
  }
  return lines;
}

/** Whether this process may write `file` (or create it): only root changes the server's own files. */
export async function mayWrite(file: string, uid = process.getuid?.()): Promise<boolean> {
  if (uid !== 0) return false;
  const target = (await readIfThere(file)) === null ? path.dirname(file) : file;
  return fs.access(target, fsConstants.W_OK).then(
    () => true,
    () => false,
  );
}
