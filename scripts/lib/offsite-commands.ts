import path from "node:path";
import { backupsDirOf } from "~/backups/backup-files.server";
import { formatBytes } from "~/backups/backup-status";
import { checkOffsiteStore, checkPassed } from "~/backups/offsite-check.server";
import { recordOffsiteFailure, recordOffsiteSuccess } from "~/backups/offsite-copy.server";
import { keepPolicyOf, runOffsiteCopy, withOffsiteLease } from "~/backups/offsite-run.server";
import { resealOffsiteKeys } from "~/backups/offsite-keys.server";
import { openOffsiteRepository } from "~/backups/offsite-repository.server";
import { openOffsiteStore, type OffsiteStore } from "~/backups/offsite-store.server";
import type { Env } from "~/env.server";
import { systemClock } from "~/lib/clock";
import type { AppServices } from "~/services.server";

/** What `npm run backup -- --offsite | --verify | --read-data` do (decision 0060); they print their outcome. */
export function requireOffsiteStore(env: Env, flag: string): OffsiteStore {
  const store = openOffsiteStore(env);
  if (!store)
    throw new Error(
      `${flag} needs an off-site store: set BACKUP_S3_BUCKET and its BACKUP_S3_* settings (docs/DEPLOY.md, step 12)`,
    );
  return store;
}

/** One off-site copy now, under the same lease as the server's, recorded for the dashboard. Returns the exit code. */
export async function copyOffsiteNow(services: AppServices): Promise<number> {
  const { env } = services;
  const store = requireOffsiteStore(env, "--offsite");
  try {
    if (!env.BACKUP_PASSPHRASE) {
      console.error(
        "No copy leaves the server without a backup passphrase: add BACKUP_PASSPHRASE to the settings (docs/DEPLOY.md, step 12), then run this again.",
      );
      return 1;
    }
    const withClock = { ...services, clock: systemClock };
    const workDir = backupsDirOf(env.DATA_DIR);
    console.log(`Copying off the server to ${store.description} …`);
    const ran = await withOffsiteLease(withClock, async (signal) => {
      try {
        const result = await runOffsiteCopy(
          services,
          {
            store,
            passphrase: env.BACKUP_PASSPHRASE!,
            policy: keepPolicyOf(env),
            workDir,
            cacheDir: path.join(workDir, ".offsite-cache"),
          },
          { at: systemClock.now(), signal },
        );
        await recordOffsiteSuccess(withClock, { name: result.copy.name, sentBytes: result.copy.bytesSent });
        return result;
      } catch (error) {
        await recordOffsiteFailure(withClock, (error as Error).message, store.description);
        throw error;
      }
    });
    if (!ran) {
      console.error(
        "Another off-site copy is being made right now (by the server, or another npm run backup). Try again in a few minutes.",
      );
      return 1;
    }
    const { copy, prune, pruneError } = ran.value;
    console.log(
      `Copied off the server to ${store.description}: copy ${copy.name} (database ${formatBytes(copy.tableBytes)} in ${copy.rows} rows, ` +
        `${copy.files} image files of ${formatBytes(copy.fileBytes)}); sent ${formatBytes(copy.bytesSent)} in ${copy.objectsSent} objects.`,
    );
    if (copy.missingObjects)
      console.error(`Warning: ${copy.missingObjects} image file(s) the database refers to were missing from storage.`);
    if (prune) {
      console.log(
        `The store keeps ${prune.keptCopies} copies in ${formatBytes(prune.storedBytes)}` +
          (prune.removedCopies.length
            ? `; ${prune.removedCopies.length} older copies and ${prune.removedObjects} objects no kept copy needs were removed.`
            : "."),
      );
    } else if (pruneError)
      console.error(`Old copies could not be removed this time (the next copy tries again): ${pruneError}`);
    return 0;
  } finally {
    store.close();
  }
}

/** --verify, and with readData --read-data. Returns the exit code. */
export async function verifyOffsite(env: Env, readData: boolean, passphrase: () => Promise<string>): Promise<number> {
  const store = requireOffsiteStore(env, readData ? "--read-data" : "--verify");
  try {
    const repo = await openOffsiteRepository(store, await passphrase(), { create: false });
    if (!repo) {
      console.log(`${store.description} holds no off-site copies yet.`);
      return 0;
    }
    const report = await checkOffsiteStore(repo, {
      readData,
      onProgress: (done, total) => {
        if (process.stdout.isTTY && (done % 50 === 0 || done === total))
          process.stdout.write(`\r  read ${done} of ${total} objects`);
      },
    });
    if (readData && process.stdout.isTTY) process.stdout.write("\n");
    for (const copy of report.unreadableCopies) console.error(`The copy ${copy.name} cannot be read: ${copy.message}`);
    for (const object of report.missing.slice(0, 20)) {
      console.error(
        `Missing: object ${object.id}, needed by ${object.copies.length} copies (newest: ${object.copies.at(-1)})`,
      );
    }
    for (const object of report.damaged.slice(0, 20)) console.error(`Damaged: ${object.message}`);
    if (!checkPassed(report)) {
      console.error(
        `${store.description}: ${report.unreadableCopies.length} unreadable copies, ${report.missing.length} missing and ${report.damaged.length} damaged objects. ` +
          "The next copy sends again whatever is missing; copies that name a damaged object cannot be restored.",
      );
      return 1;
    }
    console.log(
      `${store.description}: ${report.copies} copies; every one of the ${report.objects} objects they refer to is there` +
        (readData
          ? `, and each was downloaded and matched its name's hash (${formatBytes(report.bytesRead)} read).`
          : "."),
    );
    return 0;
  } finally {
    store.close();
  }
}

/** --change-passphrase: the copies' keys sealed again with BACKUP_PASSPHRASE, opened with the old one. Returns the exit code. */
export async function changeOffsitePassphrase(env: Env, oldPassphrase: () => Promise<string>): Promise<number> {
  const store = requireOffsiteStore(env, "--change-passphrase");
  try {
    if (!env.BACKUP_PASSPHRASE) {
      console.error(
        "Set the new passphrase as BACKUP_PASSPHRASE in the settings first, then run this again with the old one.",
      );
      return 1;
    }
    if (!(await resealOffsiteKeys(store, await oldPassphrase(), env.BACKUP_PASSPHRASE))) {
      console.log(`${store.description} holds no off-site copies yet: the next copy uses BACKUP_PASSPHRASE.`);
      return 0;
    }
    console.log(
      `The off-site copies in ${store.description} now open with BACKUP_PASSPHRASE (and no longer with the old passphrase).`,
    );
    return 0;
  } finally {
    store.close();
  }
}
