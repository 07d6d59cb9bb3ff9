import { spawn } from "node:child_process";

export type ScriptResult = { status: number | null; stdout: string; stderr: string };

/**
 * Runs scripts/{script}.ts the way `npm run backup|restore` does, and collects what it printed.
 * ADMIN_* from the caller's shell are cleared, so a test's outcome never depends on them.
 */
export function runScript(
  script: "backup" | "restore",
  args: string[],
  env: Record<string, string>,
  /** Started from a shell with this umask (e.g. "022", a usual login's), to show the script sets its own. */
  options: { umask?: string } = {},
): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const command = [process.execPath, "--import", "tsx", `scripts/${script}.ts`, ...args];
    const [file, ...argv] = options.umask ? ["/bin/sh", "-c", `umask ${options.umask} && exec "$@"`, "sh", ...command] : command;
    const child = spawn(file!, argv, {
      env: { ...process.env, ADMIN_PASSWORD: "", ADMIN_USERNAME: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
