import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startCaddy } from "./caddy";
import { offsiteS3Env } from "./s3-backend";

/**
 * restic in the tests (decision 0070). Over plain HTTP restic's S3 client sends streaming-signed
 * bodies, which s3rver stores undecoded, so restic reaches the test S3 server (behind its
 * signature-checking front) over HTTPS, through a real Caddy with its internal CA; restic trusts
 * Caddy's root through SSL_CERT_FILE, as a site with a private CA would.
 */
export type ResticS3 = { endpoint: string; caFile: string; stop(): Promise<void> };

export async function startResticS3(s3Endpoint: string): Promise<ResticS3> {
  const caddy = await startCaddy({ upstream: new URL(s3Endpoint).host });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restic-ca-"));
  const caFile = path.join(dir, "caddy-root.pem");
  await fs.writeFile(caFile, caddy.rootCertificate);
  return {
    endpoint: caddy.url,
    caFile,
    async stop() {
      await caddy.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** The settings of a site whose copies go to `bucket` through `front`: BACKUP_S3_*, and the CA (restic's and the site's). */
export const resticS3Env = (front: ResticS3, bucket: string) => ({
  ...offsiteS3Env(front.endpoint, bucket),
  SSL_CERT_FILE: front.caFile,
});

/** The plain CLI, as whoever runs the site would use it: the repository and password from restic's own variables. */
export async function resticCli(
  args: string[],
  repo: { repository: string; passphrase: string; env?: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restic-cli-"));
  const passwordFile = path.join(dir, "password");
  await fs.writeFile(passwordFile, `${repo.passphrase}\n`, { mode: 0o600 });
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn("restic", ["--cache-dir", path.join(dir, "cache"), ...args], {
        env: { ...process.env, ...repo.env, RESTIC_REPOSITORY: repo.repository, RESTIC_PASSWORD_FILE: passwordFile },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      child.once("error", reject);
      child.once("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** How plain restic reaches a site's BACKUP_S3_* repository (what docs/DEPLOY.md tells an owner to set). */
export const s3RepositoryOf = (vars: Record<string, string>) => ({
  repository: `s3:${vars.BACKUP_S3_ENDPOINT}/${vars.BACKUP_S3_BUCKET}/cornerstone-backups/restic`,
  env: {
    AWS_ACCESS_KEY_ID: vars.BACKUP_S3_ACCESS_KEY_ID!,
    AWS_SECRET_ACCESS_KEY: vars.BACKUP_S3_SECRET_ACCESS_KEY!,
    SSL_CERT_FILE: vars.SSL_CERT_FILE!,
  },
  options: ["-o", "s3.bucket-lookup=path", "-o", `s3.region=${vars.BACKUP_S3_REGION}`],
});
