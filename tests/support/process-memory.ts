import { readFileSync } from "node:fs";
import fs from "node:fs/promises";

/**
 * What Linux says about a running process (/proc), for the memory test and
 * `npm run bench`: measured from outside, on a separately started server.
 */

async function statusField(pid: number, field: "VmHWM" | "VmRSS"): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status);
  if (!match) throw new Error(`No ${field} for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Peak resident memory over the process's life so far (VmHWM), in MB. */
export const peakRssMB = (pid: number) => statusField(pid, "VmHWM");

/** Resident memory now (VmRSS), in MB. */
export const rssMB = (pid: number) => statusField(pid, "VmRSS");

/** The process's direct children. */
export async function childPids(pid: number): Promise<number[]> {
  const tasks = await fs.readdir(`/proc/${pid}/task`);
  const children = await Promise.all(
    tasks.map((task) => fs.readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "")),
  );
  return children.flatMap((list) => list.trim().split(/\s+/).filter(Boolean).map(Number));
}

/** The command line, arguments joined by spaces. */
export async function commandLine(pid: number): Promise<string> {
  return (await fs.readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ").trim();
}

/** CPU time used so far (user + system), in clock ticks. */
export async function cpuTicks(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Whether a shared library whose path contains `name` is mapped into the process. */
export async function mapsLibrary(pid: number, name: string): Promise<boolean> {
  return (await fs.readFile(`/proc/${pid}/maps`, "utf8")).includes(name);
}

/** Whether the process exists and has not exited (a zombie waiting to be reaped counts as exited). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
