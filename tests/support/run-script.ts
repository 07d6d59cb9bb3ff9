import { spawn } from "node:child_process";

export type ScriptResult = { status: number | null; stdout: string; stderr: string };

/**
 * Runs scripts/{script}.ts the way `npm run backup|restore` does, and collects what it printed.
 * ADMIN_* from the caller's shell are cleared, so a test's outcome never depends on them.
 */
export function runScript(
  script: "backup" | "restore" | "admin-password",
  args: string[],
  env: Record<string, string>,
  /** What the script reads on stdin (admin-password's new password). */
  input = "",
): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", `scripts/${script}.ts`, ...args], {
      env: { ...process.env, ADMIN_PASSWORD: "", ADMIN_USERNAME: "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
