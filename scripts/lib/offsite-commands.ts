import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { backupsDirOf, statfsProbe } from "~/backups/backup-files.server";
import { formatBytes } from "~/backups/backup-status";
import { takeOffsiteCopy, type OffsiteCopyResult } from "~/backups/offsite-copy-process.server";
import { resticFor } from "~/backups/offsite-restic.server";
import { createOffsiteSchedule, type OffsiteCopyRunner } from "~/backups/offsite-schedule.server";
import { copyFolderIn } from "~/backups/restore-source.server";
import { RestoreRefusedError } from "~/backups/restore.server";
import type { Env } from "~/env.server";
import type { AppServices } from "~/services.server";

/**
 * `npm run backup -- --offsite | --verify | --read-data` and `npm run restore -- --from-offsite [SNAPSHOT] | --list`
 * (decision 0070). They print their outcome and return the exit code; a refusal is a ResticError.
 */
export async function copyOffsiteNow(services: AppServices): Promise<number> {
  const { where } = resticFor(services.env, services.env.BACKUP_PASSPHRASE);
  console.log(`Copying off the server to ${where} …`);
  let copy: OffsiteCopyResult | null = null;
  const runner: OffsiteCopyRunner = async (request) => (copy = await takeOffsiteCopy(services, request));
  const outcome = await createOffsiteSchedule(services, { runner }).copyNow();
  const made = copy as OffsiteCopyResult | null;
  if (!made) {
    const busy = "another copy is being made right now (try again in a few minutes)";
    console.error(`No copy was made: ${outcome === "claimed-elsewhere" ? busy : "see the error above"}.`);
    return 1;
  }
  console.log(
    `Copied off the server to ${where}: snapshot ${made.snapshot.slice(0, 8)} (${made.files} image files, ` +
      `${formatBytes(made.fileBytes)}); restic added ${formatBytes(made.addedBytes)} before compression.`,
  );
  if (made.pruneProblem)
    console.error(`Old copies were not all pruned (the next copy tries again): ${made.pruneProblem}`);
  return 0;
}

/** --verify (`restic check`) and --read-data (`restic check --read-data`). */
export async function verifyOffsite(env: Env, readData: boolean, passphrase: () => Promise<string>): Promise<number> {
  const restic = resticFor(env, await passphrase());
  const problems = await restic.check(readData);
  for (const problem of problems) console.error(problem);
  const how = readData ? "restic check --read-data (every file downloaded and read)" : "restic check";
  if (!problems.length) console.log(`${restic.where}: ${how} found no errors.`);
  return problems.length ? 1 : 0;
}

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** --list: this site's snapshots, newest first. */
export async function listOffsiteCopies(env: Env, passphrase: () => Promise<string>): Promise<void> {
  const restic = resticFor(env, await passphrase());
  const snapshots = (await restic.snapshots()).reverse();
  console.log(`Copies in ${restic.where} (restore one with: npm run restore -- --from-offsite ID):`);
  if (!snapshots.length) console.log("  none yet");
  for (const { short_id, time, hostname } of snapshots)
    console.log(`  ${short_id}  ${when(time)}  made on ${hostname}`);
}

/**
 * --from-offsite [SNAPSHOT]: the newest copy, or the one named, restored by restic into DATA_DIR/backups (once the
 * room for it and for the restore is checked), then handed to `restore` as a folder of the archive's entries.
 */
export async function withOffsiteCopy(
  env: Env,
  name: string | undefined,
  passphrase: () => Promise<string>,
  restore: (folder: string, name: string) => Promise<void>,
): Promise<void> {
  const restic = resticFor(env, await passphrase());
  const snapshots = await restic.snapshots();
  const chosen = name ? snapshots.find((snapshot) => snapshot.id.startsWith(name)) : snapshots.at(-1);
  const refuse = (why: string) => new RestoreRefusedError(`${why} Nothing was changed.`);
  if (!chosen)
    throw refuse(`There is no copy ${name ? `${name} ` : ""}in ${restic.where}. npm run restore -- --list shows them.`);
  console.log(`Restoring ${chosen.short_id} (made ${when(chosen.time)}) from ${restic.where} …`);
  await fs.mkdir(env.DATA_DIR, { recursive: true, mode: 0o700 });
  const needed = 2 * (await restic.size(chosen.id)) + 64 * 1024 * 1024;
  const { freeBytes } = await statfsProbe(env.DATA_DIR);
  if (freeBytes < needed)
    throw refuse(
      `Restoring ${chosen.short_id} needs about ${formatBytes(needed)} free on the disk of ${env.DATA_DIR} (restic's ` +
        `copy, then the restore itself); ${formatBytes(freeBytes)} is free.`,
    );
  // A damaged pack is named at once by restic's check, not after restore's retries.
  const damaged = (await restic.check(false)).filter((problem) => problem.startsWith("pack"));
  if (damaged.length) throw refuse(`${restic.where} is damaged: ${damaged.join(" ")}`);
  const target = path.join(backupsDirOf(env.DATA_DIR), `.restore-${randomBytes(6).toString("hex")}`);
  try {
    await restic.restore(chosen.id, target);
    await restore(await copyFolderIn(target), chosen.short_id);
  } finally {
    await fs.rm(target, { recursive: true, force: true });
  }
}
