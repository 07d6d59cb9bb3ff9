/**
 * Off-site copies over a simulated history (`npm run bench -- --only=offsite`; decision 0060):
 * a site of 300 photo-like JPEGs of about 4 MB, then 14 months on an injected clock with 20 text
 * edits and 5 new photos a week (uploaded together, after a job) and 2 photos deleted a month,
 * an off-site copy every hour kept by the default policy (48 hours, 30 days, 12 months), into
 * s3rver. Then the newest copy restored onto an empty server, timed; then the production server
 * on the final data with the off-site settings: its peak memory and its copy process's while the
 * copy 5 minutes after its start runs. The simulation opens the store's keys once (one scrypt);
 * the server's copy opens them as every copy does.
 * Options: --offsite-photos=300 --offsite-months=14.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ensureAdministrator } from "~/auth/auth.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { keepPolicyOf, runOffsiteCopy } from "~/backups/offsite-run.server";
import { openOffsiteRepository } from "~/backups/offsite-repository.server";
import { chooseCopy, rebuildArchive } from "~/backups/offsite-restore.server";
import { createS3OffsiteStore } from "~/backups/offsite-store.server";
import { restoreBackup } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createTestBucket, s3ConfigFor, startS3Server } from "../tests/support/backends";
import { offsiteEnv } from "../tests/support/offsite-site";
import { peakRssMB, rssMB } from "../tests/support/process-memory";
import { startTestServer } from "../tests/support/test-server";
import { openServices } from "../server/bootstrap";
import {
  addPhoto,
  deleteOldestPhoto,
  editText,
  folderBytes,
  seededRandom,
  storeWithListingInMemory,
} from "./lib/offsite-history";
import { ensureBuild, PRODUCTION_MALLOC_ENV } from "./lib/production-server";

const HOUR = 3_600_000;
const PASSPHRASE = "bench-quarry-lantern-basalt-orchard";
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

type HourEvents = { texts: number; photos: number; deletions: number };

/** Which hours of the history get which changes: 20 texts and 5 photos (one batch) a week, 2 deletions a month. */
function plan(hours: number, start: Date): Map<number, HourEvents> {
  const random = seededRandom(26);
  const events = new Map<number, HourEvents>();
  const at = (hour: number) => events.get(hour) ?? events.set(hour, { texts: 0, photos: 0, deletions: 0 }).get(hour)!;
  for (let week = 0; week * 168 < hours; week++) {
    for (let i = 0; i < 20; i++) at(week * 168 + Math.floor(random() * 168)).texts += 1;
    at(week * 168 + Math.floor(random() * 168)).photos += 5;
  }
  for (let hour = 0; hour < hours; hour++) {
    const t = new Date(start.getTime() + hour * HOUR);
    // The 10th and 20th of each month, at 10:00 UTC.
    if ((t.getUTCDate() === 10 || t.getUTCDate() === 20) && t.getUTCHours() === 10) at(hour).deletions += 1;
  }
  return events;
}

function option(name: string, fallback: number): number {
  const given = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return given ? Number(given.split("=")[1]) : fallback;
}

export async function benchOffsite() {
  const photos = option("offsite-photos", 300);
  const months = option("offsite-months", 14);
  ensureBuild();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-offsite-"));
  const s3 = await startS3Server({ verifySignatures: false });
  try {
    const bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
    const dataDir = path.join(work, "data");
    const end = new Date(Math.floor(Date.now() / HOUR) * HOUR - HOUR);
    const start = new Date(end);
    start.setUTCMonth(start.getUTCMonth() - months);
    const clock = createManualClock(start);
    const env = parseEnv({
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      NODE_ENV: "test",
      ...offsiteEnv(s3.endpoint, bucket.name),
      BACKUP_PASSPHRASE: PASSPHRASE,
    });
    const services = { ...(await openServices(env, createLogger({ level: "silent" }), { clock })), clock };
    await ensureAdministrator(services, { username: "owner", password: "the bench's own password" });
    let photoCount = 0;
    const seeded = performance.now();
    for (; photoCount < photos; photoCount++) await addPhoto(services, photoCount);
    console.error(`seeded ${photos} photos in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);

    const store = storeWithListingInMemory(createS3OffsiteStore(s3ConfigFor(s3.endpoint, bucket.name)));
    const workDir = backupsDirOf(dataDir);
    const settings = {
      store,
      passphrase: PASSPHRASE,
      policy: keepPolicyOf(env),
      workDir,
      cacheDir: path.join(workDir, ".offsite-cache"),
    };
    const repository = (await openOffsiteRepository(store, PASSPHRASE, { create: true, cacheDir: settings.cacheDir }))!;
    const copy = () => runOffsiteCopy(services, settings, { at: clock.now(), repository });

    const firstStarted = performance.now();
    const first = await copy();
    const firstSeconds = (performance.now() - firstStarted) / 1000;
    const hours = Math.round((end.getTime() - start.getTime()) / HOUR);
    const events = plan(hours, start);
    const afterOneText: number[] = [];
    const afterNothing: number[] = [];
    const afterPhotos: { sent: number; photoBytes: number }[] = [];
    let last = first;
    const simulated = performance.now();
    for (let hour = 1; hour <= hours; hour++) {
      clock.set(start.getTime() + hour * HOUR - 20 * 60_000);
      const event = events.get(hour) ?? { texts: 0, photos: 0, deletions: 0 };
      for (let i = 0; i < event.texts; i++) await editText(services, hour * 10 + i);
      let photoBytes = 0;
      for (let i = 0; i < event.photos; i++) photoBytes += await addPhoto(services, photoCount++);
      for (let i = 0; i < event.deletions; i++) await deleteOldestPhoto(services);
      clock.set(start.getTime() + hour * HOUR);
      last = await copy();
      const sent = last.copy.bytesSent;
      if (event.photos && !event.deletions) afterPhotos.push({ sent, photoBytes });
      else if (event.texts === 1 && !event.photos && !event.deletions) afterOneText.push(sent);
      else if (!event.texts && !event.photos && !event.deletions) afterNothing.push(sent);
      if (hour % 500 === 0)
        console.error(`  ${hour} of ${hours} hours (${((performance.now() - simulated) / hour).toFixed(0)} ms a copy)`);
    }
    const simulationSeconds = (performance.now() - simulated) / 1000;
    if (!(await store.check())) throw new Error("the in-memory listing drifted from the store's");
    const liveBytes =
      (await folderBytes(path.join(dataDir, "uploads"))) + (await fs.stat(path.join(dataDir, "site.db"))).size;
    const stored = last.prune!;
    await services.close();

    // The newest copy onto an empty server.
    const restoreDir = path.join(work, "restored");
    const restoreStarted = performance.now();
    const repo = (await openOffsiteRepository(createS3OffsiteStore(s3ConfigFor(s3.endpoint, bucket.name)), PASSPHRASE, {
      create: false,
    }))!;
    const rebuilt = await rebuildArchive(repo, await chooseCopy(repo), { workDir: backupsDirOf(restoreDir) });
    const rebuiltSeconds = (performance.now() - restoreStarted) / 1000;
    const restored = await restoreBackup({ dataDir: restoreDir, file: rebuilt.file });
    const restoreSeconds = (performance.now() - restoreStarted) / 1000;
    await fs.rm(rebuilt.file, { force: true });
    repo.store.close();
    await fs.rm(restoreDir, { recursive: true, force: true });

    const memory = await serverDuringCopy(dataDir, {
      ...offsiteEnv(s3.endpoint, bucket.name),
      BACKUP_PASSPHRASE: PASSPHRASE,
    });
    const photoRatios = afterPhotos.map((p) => p.sent / p.photoBytes);
    const figures = {
      photosAtStart: photos,
      months,
      copies: hours + 1,
      firstCopy: { sentMB: mb(first.copy.bytesSent), seconds: Math.round(firstSeconds), files: first.copy.files },
      afterOneEditedTextKB: {
        median: kb(median(afterOneText)),
        max: kb(Math.max(...afterOneText)),
        copies: afterOneText.length,
      },
      afterNothingKB: { median: kb(median(afterNothing)), max: kb(Math.max(...afterNothing)) },
      afterFivePhotos: {
        worstRatio: Math.round(Math.max(...photoRatios) * 1000) / 1000,
        medianRatio: Math.round(median(photoRatios) * 1000) / 1000,
        batches: afterPhotos.length,
      },
      end: {
        photos: last.copy.files / 4,
        liveMB: mb(liveBytes),
        storedMB: mb(stored.storedBytes),
        storedOverLive: Math.round((stored.storedBytes / liveBytes) * 1000) / 1000,
        keptCopies: stored.keptCopies,
        objects: stored.storedObjects,
      },
      simulation: { seconds: Math.round(simulationSeconds), msPerCopy: Math.round((simulationSeconds * 1000) / hours) },
      restore: {
        rebuildSeconds: Math.round(rebuiltSeconds),
        totalSeconds: Math.round(restoreSeconds),
        files: restored.objects,
      },
      memory,
    };
    console.log("\n== Off-site copies over a simulated history");
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    await s3.stop();
    await fs.rm(work, { recursive: true, force: true });
  }
}

/**
 * The production server on `dataDir` with the off-site settings: its copy leaves 5 minutes after
 * the start (in its own process). Peak RSS of the web process, sampled while that copy runs, and
 * of the copy process (as it reported it in the server's log).
 */
async function serverDuringCopy(dataDir: string, env: Record<string, string>) {
  const copyOfData = `${dataDir}-served`;
  await fs.cp(dataDir, copyOfData, { recursive: true });
  // As `npm run serve` runs it, but for the heap ceiling (NODE_OPTIONS would reach the copy process too, which production's flags do not).
  const server = await startTestServer({
    dataDir: copyOfData,
    env: { ...env, ...PRODUCTION_MALLOC_ENV, LOG_LEVEL: "info" },
  });
  try {
    let webPeak = 0;
    const deadline = Date.now() + 10 * 60_000;
    console.error("waiting for the server's first off-site copy (5 minutes after its start) …");
    while (Date.now() < deadline && !/off-site copy made|could not make the off-site copy/.test(server.output())) {
      webPeak = Math.max(webPeak, await rssMB(server.pid));
      await fetch(`${server.url}/`).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const line = server
      .output()
      .split("\n")
      .find((l) => l.includes("off-site copy made"));
    if (!line) throw new Error(`The server made no off-site copy:\n${server.output().slice(-2000)}`);
    const made = JSON.parse(line) as { peakRssMB?: number; bytesSent?: number };
    return {
      webPeakRssMB: Math.round(Math.max(webPeak, await peakRssMB(server.pid))),
      copyPeakRssMB: made.peakRssMB ?? null,
      copySentKB: kb(made.bytesSent ?? 0),
    };
  } finally {
    await server.stop();
  }
}
