import { spawn } from "node:child_process";
import { endStdin } from "../support/run-script";

/**
 * Runs `npm run admin:password` (its script, under tsx) with these settings
 * and `input` piped in, to the end. Asynchronous, so the test process keeps
 * serving its own connections meanwhile.
 */
export function runAdminPassword(
  env: Record<string, string>,
  input: string,
  args: string[] = [],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/admin-password.ts", ...args], {
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  endStdin(child, input);
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}
