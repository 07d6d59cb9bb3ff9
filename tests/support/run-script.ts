import { spawn, type ChildProcess } from "node:child_process";

/**
 * Gives a child its input and closes its stdin. A command that exits before
 * reading it closes the pipe: that EPIPE is no failure (its exit status tells).
 */
export function endStdin(child: ChildProcess, input: string): void {
  child.stdin!.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
  child.stdin!.end(input);
}

export type ScriptResult = { status: number | null; stdout: string; stderr: string };

/**
 * Runs scripts/{script}.ts the way `npm run backup|restore` does, and collects what it printed.
 * ADMIN_* from the caller's shell are cleared, so a test's outcome never depends on them.
 */
export function runScript(
  script: "backup" | "restore" | "admin-password" | "migrations",
  args: string[],
  env: Record<string, string>,
  options: {
    /** What the script reads on stdin (admin-password's new password). */
    input?: string;
    /** Started from a shell with this umask (e.g. "022", a usual login's), to show the script sets its own. */
    umask?: string;
  } = {},
): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const command = [process.execPath, "--import", "tsx", `scripts/${script}.ts`, ...args];
    const [file, ...argv] = options.umask
      ? ["/bin/sh", "-c", `umask ${options.umask} && exec "$@"`, "sh", ...command]
      : command;
    const child = spawn(file!, argv, {
      env: { ...process.env, ADMIN_PASSWORD: "", ADMIN_USERNAME: "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    endStdin(child, options.input ?? "");
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
