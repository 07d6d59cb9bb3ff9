import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { OffsitePassphraseError } from "~/backups/offsite-keys.server";
import { openOffsiteRepository } from "~/backups/offsite-repository.server";
import { keepPolicyOf, runOffsiteCopy } from "~/backups/offsite-run.server";
import { createS3OffsiteStore, REPOSITORY_PREFIX } from "~/backups/offsite-store.server";
import { createTestBucket, s3ConfigFor } from "../support/backends";
import { fillOffsiteSite, OFFSITE_PASSPHRASE, offsiteEnv } from "../support/offsite-site";
import { runScript } from "../support/run-script";
import { createAdminContext } from "./helpers";
import { createManualClock } from "~/lib/clock";

/** A new BACKUP_PASSPHRASE for copies already off the server (decision 0060): the same keys, sealed again. */
const NEW_PASSPHRASE = "granite-harbour-kumara-lantern";
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

describe("changing the backup passphrase", () => {
  it("npm run backup -- --change-passphrase: the copies open with the new one only, and the next copy sends nothing again", async () => {
    const bucket = await createTestBucket(inject("backends").s3Endpoint, { siteOrigins: [] });
    cleanups.push(() => bucket.remove());
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createAdminContext(
      { ...offsiteEnv(inject("backends").s3Endpoint, bucket.name), BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE },
      { clock },
    );
    cleanups.push(() => ctx.close());
    await fillOffsiteSite({ ...ctx.services, clock });
    const store = createS3OffsiteStore(s3ConfigFor(inject("backends").s3Endpoint, bucket.name));
    cleanups.push(async () => store.close());
    const settings = {
      store,
      passphrase: OFFSITE_PASSPHRASE,
      policy: keepPolicyOf(ctx.env),
      workDir: backupsDirOf(ctx.dataDir),
      scryptWorkFactor: 12,
    };
    const first = await runOffsiteCopy(ctx.services, settings, { at: clock.now() });

    const oldFile = path.join(os.tmpdir(), `cornerstone-old-${Date.now()}.passphrase`);
    await fs.writeFile(oldFile, `${OFFSITE_PASSPHRASE}\n`, { mode: 0o600 });
    cleanups.push(() => fs.rm(oldFile, { force: true }));
    const changed = await runScript("backup", ["--change-passphrase", "--old-passphrase-file", oldFile], {
      ...ctx.envVars,
      BACKUP_PASSPHRASE: NEW_PASSPHRASE,
    });
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stdout).toContain("now open with BACKUP_PASSPHRASE (and no longer with the old passphrase)");
    expect(await bucket.keys(`${REPOSITORY_PREFIX}keys/`)).toHaveLength(1);

    await expect(openOffsiteRepository(store, OFFSITE_PASSPHRASE, { create: false })).rejects.toThrow(
      OffsitePassphraseError,
    );
    clock.advance(60 * 60_000);
    const next = await runOffsiteCopy(ctx.services, { ...settings, passphrase: NEW_PASSPHRASE }, { at: clock.now() });
    // The same keys: every object the first copy sent is still named the same, so nothing is sent again.
    expect(next.copy.filesRead).toBe(0);
    expect(next.copy.bytesSent).toBeLessThan(64 * 1024);
    expect(next.prune!.keptCopies).toBe(2);
    expect(first.copy.files).toBe(next.copy.files);

    // Run again with the old passphrase (now wrong): refused, nothing changed.
    const again = await runScript("backup", ["--change-passphrase", "--old-passphrase-file", oldFile], {
      ...ctx.envVars,
      BACKUP_PASSPHRASE: NEW_PASSPHRASE,
    });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("The passphrase does not open the off-site copies' keys");
    expect(await bucket.keys(`${REPOSITORY_PREFIX}keys/`)).toHaveLength(1);
  }, 240_000);
});
