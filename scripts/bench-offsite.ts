/**
 * Off-site copies by restic over a simulated history (`npm run bench -- --only=offsite`; decision
 * 0070): a site of 300 photo-like JPEGs of about 4.5 MB, then --offsite-weeks (12) on an injected
 * clock with 20 text edits and 5 new photos a week and 2 photos deleted a month, a copy every
 * --offsite-hours (8) kept by the default policy, into s3rver through Caddy. Sent bytes are what
 * the bucket grew by. Then the newest copy restored onto an empty server by `npm run restore --
 * --from-offsite`, timed; then the production server on the final data: its peak RSS while the copy
 * 5 minutes after its start runs. Options: --offsite-photos=300 --offsite-weeks=12 --offsite-hours=8.
 */
import { execFile, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { ensureAdministrator } from "~/auth/auth.server";
import { takeOffsiteCopy } from "~/backups/offsite-copy-process.server";
import { createOffsiteSchedule } from "~/backups/offsite-schedule.server";
import { saveContent } from "~/content/content.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createTestBucket, startS3Server, type TestBucket } from "../tests/support/backends";
import { peakRssMB, rssMB } from "../tests/support/process-memory";
import { resticS3Env, startResticS3 } from "../tests/support/restic";
import { startTestServer } from "../tests/support/test-server";
import { openServices } from "../server/bootstrap";
import { ensureBuild, PRODUCTION_MALLOC_ENV } from "./lib/production-server";

const HOUR = 3_600_000;
const PASSPHRASE = "bench-quarry-lantern-basalt-orchard";
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const option = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const photoLike = (bytes: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(bytes - 4)]);

type Site = Awaited<ReturnType<typeof openServices>>;

/** One photo as the pipeline leaves it: an original of about 4 MB, three display versions, its row. Returns its bytes. */
async function addPhoto(services: Site, n: number): Promise<number> {
  const original = photoLike(4 * 1024 * 1024 + (n % 7) * 65_536);
  const originalKey = `originals/${randomUUID()}`;
  await services.storage.write(originalKey, Readable.from([original]));
  const names = ["avif", "webp", "jpg"].map((ext) => `${randomBytes(10).toString("hex")}.${ext}`);
  const sizes = [60_000, 90_000, 160_000];
  for (const [i, name] of names.entries())
    await services.storage.write(`variants/${name}`, Readable.from([photoLike(sizes[i]!)]));
  const variant = (i: number) => ({ width: 1600, height: 1200, path: `/media/${names[i]}`, bytes: sizes[i]! });
  const now = services.clock.now().toISOString();
  await services.db
    .insertInto("gallery_images")
    .values({
      id: randomUUID(),
      gallery_type: "traditional",
      caption: `Dry-stone wall number ${n}, Taranaki`,
      sort_order: n,
      image_path: variant(2).path,
      width: 1600,
      height: 1200,
      placeholder: "data:image/webp;base64,UklGRg==",
      variants: JSON.stringify({ avif: [variant(0)], webp: [variant(1)], jpeg: variant(2) }),
      original_key: originalKey,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return original.length + sizes.reduce((a, b) => a + b, 0);
}

async function deleteOldestPhoto(services: Site): Promise<void> {
  const row = await services.db
    .selectFrom("gallery_images")
    .selectAll()
    .orderBy("created_at")
    .limit(1)
    .executeTakeFirst();
  if (!row) return;
  await services.db.deleteFrom("gallery_images").where("id", "=", row.id).execute();
  const variants = JSON.parse(row.variants) as {
    avif: { path: string }[];
    webp: { path: string }[];
    jpeg: { path: string };
  };
  for (const { path: media } of [...variants.avif, ...variants.webp, variants.jpeg])
    await services.storage.delete(`variants/${media.slice("/media/".length)}`);
  if (row.original_key) await services.storage.delete(row.original_key);
}

async function storedBytes(bucket: TestBucket): Promise<number> {
  let total = 0;
  let ContinuationToken: string | undefined;
  do {
    const page = await bucket.client.send(new ListObjectsV2Command({ Bucket: bucket.name, ContinuationToken }));
    total += (page.Contents ?? []).reduce((sum, object) => sum + (object.Size ?? 0), 0);
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return total;
}

export async function benchOffsite() {
  const [photos, weeks, everyHours] = [
    option("offsite-photos", 300),
    option("offsite-weeks", 12),
    option("offsite-hours", 8),
  ];
  ensureBuild();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-offsite-"));
  const s3 = await startS3Server({ verifySignatures: false });
  const front = await startResticS3(s3.endpoint);
  process.env.SSL_CERT_FILE = front.caFile;
  try {
    const bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
    const vars = { ...resticS3Env(front, bucket.name), BACKUP_PASSPHRASE: PASSPHRASE };
    const dataDir = path.join(work, "data");
    const clock = createManualClock(Math.floor(Date.now() / HOUR) * HOUR - weeks * 168 * HOUR);
    const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...vars });
    const services = { ...(await openServices(env, createLogger({ level: "silent" }), { clock })), clock };
    await ensureAdministrator(services, { username: "owner", password: "the bench's own password" });
    let count = 0;
    for (; count < photos; count++) await addPhoto(services, count);
    // Each copy as `npm run backup -- --offsite` makes it: under the lease, from the last one, recorded.
    const schedule = createOffsiteSchedule(services, {
      runner: (request) => takeOffsiteCopy(services, request),
      clock,
    });
    const copy = async () => {
      const before = await storedBytes(bucket);
      const started = performance.now();
      if ((await schedule.copyNow()) !== "copied") throw new Error("An off-site copy failed");
      return { sent: (await storedBytes(bucket)) - before, seconds: (performance.now() - started) / 1000 };
    };
    const first = await copy();
    const afterOneText: number[] = [];
    const afterPhotos: number[] = [];
    const seconds: number[] = [];
    for (let period = 1; period <= (weeks * 168) / everyHours; period++) {
      // Texts spread over the week, the photos of one job at once, a deletion on the 10th and 20th.
      const texts = Math.floor((period * everyHours * 20) / 168) - Math.floor(((period - 1) * everyHours * 20) / 168);
      const photoBatch = period % Math.round(168 / everyHours) === 3;
      clock.advance(everyHours * HOUR - 60_000);
      for (let i = 0; i < texts; i++)
        await saveContent(services, "about.bio", `Edit ${period}.${i}: built by hand in Taranaki since 1998.`);
      let photoBytes = 0;
      if (photoBatch) for (let i = 0; i < 5; i++) photoBytes += await addPhoto(services, count++);
      const day = clock.now().getUTCDate();
      const deletes = (day === 10 || day === 20) && clock.now().getUTCHours() < everyHours;
      if (deletes) await deleteOldestPhoto(services);
      clock.advance(60_000);
      const made = await copy();
      seconds.push(made.seconds);
      if (photoBatch && !deletes) afterPhotos.push(made.sent / photoBytes);
      else if (texts === 1 && !deletes) afterOneText.push(made.sent);
    }
    const uploads = spawnSync("du", ["-sb", path.join(dataDir, "uploads"), path.join(dataDir, "site.db")], {
      encoding: "utf8",
    });
    const liveBytes = uploads.stdout.split("\n").reduce((sum, line) => sum + (Number(line.split("\t")[0]) || 0), 0);
    const stored = await storedBytes(bucket);
    await services.close();

    // The newest copy onto an empty server, by the command a new server would run.
    const empty = path.join(work, "restored");
    const restoreStarted = performance.now();
    // s3rver runs in this process: the restore must not block it.
    await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/restore.ts", "--from-offsite"], {
      env: { ...process.env, ...vars, DATA_DIR: empty, LOG_LEVEL: "silent" },
    });
    const restoreSeconds = (performance.now() - restoreStarted) / 1000;
    await fs.rm(empty, { recursive: true, force: true });

    const figures = {
      photosAtStart: photos,
      copies: seconds.length + 1,
      firstCopy: { sentMB: mb(first.sent), seconds: Math.round(first.seconds) },
      afterOneEditedTextKB: {
        median: Math.round(median(afterOneText) / 1024),
        max: Math.round(Math.max(...afterOneText) / 1024),
        copies: afterOneText.length,
      },
      afterFivePhotos: {
        worstRatio: Math.max(...afterPhotos).toFixed(3),
        medianRatio: median(afterPhotos).toFixed(3),
        batches: afterPhotos.length,
      },
      end: { liveMB: mb(liveBytes), storedMB: mb(stored), storedOverLive: (stored / liveBytes).toFixed(3) },
      secondsPerCopy: { median: median(seconds).toFixed(1), max: Math.max(...seconds).toFixed(1) },
      restoreSeconds: Math.round(restoreSeconds),
      webPeakRssMB: await serverDuringCopy(dataDir, vars),
    };
    console.log("\n== Off-site copies by restic over a simulated history");
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    delete process.env.SSL_CERT_FILE;
    await front.stop();
    await s3.stop();
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** The production server on a copy of `dataDir`: the web process's peak RSS while its copy (5 minutes after its start) runs. */
async function serverDuringCopy(dataDir: string, env: Record<string, string>): Promise<number> {
  await fs.cp(dataDir, `${dataDir}-served`, { recursive: true });
  const server = await startTestServer({
    dataDir: `${dataDir}-served`,
    env: { ...env, ...PRODUCTION_MALLOC_ENV, LOG_LEVEL: "info" },
  });
  try {
    let peak = 0;
    console.error("waiting for the server's first off-site copy (5 minutes after its start) …");
    for (const deadline = Date.now() + 10 * 60_000; Date.now() < deadline;) {
      if (/off-site copy made|could not make the off-site copy/.test(server.output())) break;
      peak = Math.max(peak, await rssMB(server.pid));
      await fetch(`${server.url}/`).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    if (!server.output().includes("off-site copy made"))
      throw new Error(`No off-site copy:\n${server.output().slice(-2000)}`);
    return Math.round(Math.max(peak, await peakRssMB(server.pid)));
  } finally {
    await server.stop();
  }
}
