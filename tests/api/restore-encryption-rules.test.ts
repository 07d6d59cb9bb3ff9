// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import { readContent, saveContent } from "~/content/content.server";
import { createManualClock } from "~/lib/clock";
import { createSite, openSite } from "../support/backup-site";
import { runScript } from "../support/run-script";

/**
 * Which backups `npm run restore` accepts when the site's backups are encrypted (decision 0058):
 * an unencrypted file is refused unless --allow-unencrypted. Real processes.
 */
const PASSPHRASE = "quarry-lantern-basalt-orchard-rules";
const TITLE = "hero.title";

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restore-rules-"));
const cleanups: (() => Promise<unknown>)[] = [];

/** Archives of one site at different times, each with its own title, so a restore shows which it was. */
const archives: Record<"older" | "planted" | "plain", string> = {} as never;

beforeAll(async () => {
  const site = await createSite({ galleries: { traditional: 1 }, enquiries: 2 });
  const made = async (label: keyof typeof archives, at: string, passphrase: string | null) => {
    await saveContent(site.services, TITLE, `The ${label} backup`);
    const file = path.join(tmp, `${label}.tar.gz${passphrase ? ".age" : ""}`);
    const result = await createBackup(
      { ...site.services, clock: createManualClock(at) },
      {
        purpose: "manual",
        workDir: backupsDirOf(site.dataDir),
        destination: { kind: "file", path: file },
        ...(passphrase ? { passphrase } : {}),
      },
    );
    expect(result.status).toBe("succeeded");
    archives[label] = file;
  };
  await made("older", "2026-03-01T03:00:00.000Z", PASSPHRASE);
  // Before 2038: tar-stream writes times as 32-bit numbers.
  await made("planted", "2037-12-31T23:59:59.000Z", null);
  await made("plain", "2026-03-07T03:00:00.000Z", null);
  await site.services.close();
  await fs.rm(site.dataDir, { recursive: true, force: true });
}, 180_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A site that a restore would replace: its own title. */
async function liveSite(): Promise<string> {
  const site = await createSite({ galleries: {}, enquiries: 1 });
  await saveContent(site.services, TITLE, "The live site");
  await site.services.close();
  cleanups.push(() => fs.rm(site.dataDir, { recursive: true, force: true }));
  return site.dataDir;
}

async function titleOf(dataDir: string): Promise<string> {
  const services = await openSite(dataDir);
  try {
    return (await readContent(services, [TITLE]))[TITLE];
  } finally {
    await services.close();
  }
}

const restore = (dataDir: string, args: string[], env: Record<string, string> = {}) =>
  runScript("restore", args, { DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env });

describe("restoring a file on this server", () => {
  it("refuses an unencrypted file when a passphrase is configured or given, naming the file and saying why; --allow-unencrypted restores it", async () => {
    const dataDir = await liveSite();
    const passphraseFile = path.join(tmp, "passphrase.txt");
    await fs.writeFile(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });

    for (const [args, env] of [
      [[archives.planted], { BACKUP_PASSPHRASE: PASSPHRASE }],
      [[archives.planted, "--passphrase-file", passphraseFile], {}],
    ] as const) {
      const refused = await restore(dataDir, [...args], env);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `${archives.planted} is not encrypted, but this site's backups are (a passphrase is set)`,
      );
      expect(refused.stderr).toContain("--allow-unencrypted");
      expect(refused.stderr).toContain("Nothing was changed.");
    }
    expect(await titleOf(dataDir)).toBe("The live site");

    // An encrypted one restores as before; an unencrypted one only when the owner says so.
    const encrypted = await restore(dataDir, [archives.older], { BACKUP_PASSPHRASE: PASSPHRASE });
    expect(encrypted.status, encrypted.stderr).toBe(0);
    expect(await titleOf(dataDir)).toBe("The older backup");
    const allowed = await restore(dataDir, [archives.plain, "--allow-unencrypted"], { BACKUP_PASSPHRASE: PASSPHRASE });
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(await titleOf(dataDir)).toBe("The plain backup");
  }, 240_000);
});
