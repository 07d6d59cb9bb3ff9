// @desktop-only: server behaviour, the same at any screen size
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { islandFilesInPage } from "~/islands/page-script";
import { photoLikeJpeg } from "../../scripts/lib/photo-like-jpeg";
import {
  loadPageScripts,
  photoUpload,
  siteClient,
  startSteadyLoad,
  summarise,
  type LoadRecord,
  type LoadReport,
  type SiteClient,
  type SteadyLoad,
} from "../support/steady-load";
import { until } from "../support/until";
import { REHEARSAL_TEXT, startRehearsal, type Rehearsal } from "../support/update-rehearsal";

/** Two visitors viewing a page a second with its scripts, an enquiry a second, uploads one after another (2 s each). */
const LOAD = { viewers: 2, viewEveryMs: 1000, enquiryEveryMs: 1000, uploadOverMs: 2000 };

/** The failing release's wait for /healthz: shorter than the guide's 60 s, to keep the test short. */
const FAILING_HEALTH_TIMEOUT_SECONDS = 10;

/**
 * docs/DEPLOY.md's step 11 under a steady load, through a real Caddy running deploy/Caddyfile's proxy
 * directive, with systemd's socket and restarts played by tests/support/socket-service.pl: an update
 * to a commit that changes the home page's headline and its menu script and adds a migration, then
 * one to a release whose server exits as it starts. Each loses no request: no failed page view,
 * script, enquiry or upload, no asset 404, every enquiry stored.
 */
test.describe.configure({ mode: "serial" });

let rehearsal: Rehearsal | null = null;
// Also after a timeout: the service, Caddy and the folders go.
test.afterEach(async () => {
  await rehearsal?.stop();
  rehearsal = null;
});

/** The load's figures, for the report, and the failures listed when there are any. */
function figures(report: LoadReport): string {
  const failed = report.failed
    .slice(0, 10)
    .map((entry) => `${entry.kind} ${entry.path} → ${entry.status} ${entry.error ?? ""}`);
  return `${report.requests} requests (${JSON.stringify(report.perKind)}), longest wait ${report.longestWaitMs} ms${failed.length ? `\n${failed.join("\n")}` : ""}`;
}

/** Whether some file under `dir` begins with `start`. */
async function someFileBeginsWith(dir: string, start: Buffer): Promise<boolean> {
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const head = await fs
      .open(path.join(entry.parentPath, entry.name))
      .then(
        async (file) =>
          (await file.read(Buffer.alloc(start.length), 0, start.length, 0).finally(() => file.close())).buffer,
      )
      .catch(() => null);
    if (head?.equals(start)) return true;
  }
  return false;
}

/**
 * An upload that is still being sent when the old server gets SIGTERM: it must finish on that server.
 * Its photo is not the load's, so the old server writing its first bytes to DATA_DIR shows it is under way there.
 */
function slowUploadAtRestart(
  client: SiteClient,
  photo: Buffer,
  loadPhoto: Buffer,
  dataDir: string,
  finished: LoadRecord[],
) {
  let done: Promise<void> = Promise.resolve();
  let differs = 0;
  while (photo[differs] === loadPhoto[differs]) differs += 1;
  const start = async () => {
    const { body, headers } = photoUpload(photo);
    const startedAt = Date.now();
    done = client
      .post("/api/enquiry-photos", body, headers, { from: "127.99.0.1", sendOverMs: 4000 })
      .then((answer) => {
        finished.push({
          kind: "upload",
          path: "/api/enquiry-photos (sent over 4 s, across SIGTERM)",
          status: answer.status,
          error: answer.error,
          startedAt,
          endedAt: Date.now(),
        });
      });
    await until(() => someFileBeginsWith(dataDir, photo.subarray(0, differs + 1)), {
      timeoutMs: 60_000,
      intervalMs: 50,
    });
  };
  return { start, finished: () => done };
}

/** A little more load on the release now serving, then the figures: ten more requests begun and answered. */
async function moreLoad(load: SteadyLoad): Promise<void> {
  const after = Date.now();
  await until(() => load.records.filter((entry) => entry.startedAt >= after).length >= 10, { timeoutMs: 60_000 });
}

test("npm run update loses no request: a new release, then a failing one switched back", async () => {
  // Two production builds under load: about two minutes on an idle 2-core machine, far longer on a busy one.
  test.setTimeout(900_000);
  const started = Date.now();
  rehearsal = await startRehearsal();
  const site = rehearsal;
  try {
    const client = siteClient(site.caddy.url, site.caddy.rootCertificate);
    const photo = await photoLikeJpeg({ width: 800, height: 600, quality: 85 });
    const slowPhoto = await photoLikeJpeg({ width: 800, height: 601, quality: 85 });
    const oldHome = await client.get("/");
    expect(oldHome.status).toBe(200);
    const oldScripts = islandFilesInPage(oldHome.body);
    expect(oldScripts.length).toBeGreaterThan(0);

    await test.step("an update to a new headline, a changed menu script and a migration, under load", async () => {
      const good = await site.commitGoodRelease();
      const load = startSteadyLoad({ client, photo, ...LOAD, tag: "first update" });
      const inFlight: LoadRecord[] = [];
      const slow = slowUploadAtRestart(client, slowPhoto, photo, site.dataDir, inFlight);
      const updateStarted = Date.now();
      const result = await site.update({ beforeRestart: slow.start });
      await slow.finished();
      await moreLoad(load);
      const accepted = (await load.stop()).enquiriesAccepted;
      const report = summarise([...load.records, ...inFlight], accepted);
      test.info().annotations.push({ type: "update", description: figures(report) });
      console.log(
        `The update under load: ${figures(report)}; the update took ${Math.round((Date.now() - updateStarted) / 1000)} s.`,
      );
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain(`Updated: ${good} is live`);

      expect(report.failed, figures(report)).toEqual([]);
      expect(report.assetNotFound).toEqual([]);
      expect(report.perKind.enquiry).toBeGreaterThan(5);
      expect(report.perKind.upload).toBeGreaterThan(1);
      // Every enquiry the site accepted is in the database.
      expect(accepted.length).toBeGreaterThan(5);
      expect(site.enquiryMessages()).toEqual(expect.arrayContaining(accepted));
      // The upload in flight when the old server got SIGTERM finished there (up to 10 s are given).
      const sigterm = site.events().find((event) => event.what.startsWith("SIGTERM"))!;
      expect(inFlight).toEqual([expect.objectContaining({ status: 201 })]);
      expect(inFlight[0]!.startedAt).toBeLessThan(sigterm.at);
      expect(inFlight[0]!.endedAt).toBeGreaterThan(sigterm.at);

      // The new release serves the new headline and ran its migration; the old page's scripts still load.
      const home = await client.get("/");
      expect(home.body).toContain(REHEARSAL_TEXT);
      expect(site.migrations()).toContain("9001-update-rehearsal");
      const newScripts = islandFilesInPage(home.body);
      expect(newScripts.filter((script) => !oldScripts.includes(script)).length).toBeGreaterThan(0);
      const oldPageScripts = await loadPageScripts(client, oldHome.body);
      expect(oldPageScripts.length).toBeGreaterThanOrEqual(oldScripts.length);
      expect(oldPageScripts.filter((entry) => entry.status !== 200)).toEqual([]);

      // The server set up by the earlier guide was converted: the unit runs `current`, Caddy retries.
      if (process.getuid?.() === 0) {
        expect(readFileSync(site.unitFile, "utf8")).toContain(
          `WorkingDirectory=${path.join(site.checkout, "current")}\n`,
        );
        expect(readFileSync(site.caddyfile, "utf8")).toContain("lb_try_duration 30s");
      }
    });

    await test.step("an update to a release whose server exits at start: switched back by itself, under load", async () => {
      const live = readFileSync(path.join(site.checkout, "releases/releases.json"), "utf8");
      const failing = await site.commitFailingRelease();
      const load = startSteadyLoad({ client, photo, ...LOAD, tag: "failing update" });
      const result = await site.update({ healthTimeoutSeconds: FAILING_HEALTH_TIMEOUT_SECONDS });
      await moreLoad(load);
      const report = await load.stop();
      test.info().annotations.push({ type: "failing update", description: figures(report) });
      console.log(`The failing update under load: ${figures(report)}.`);
      expect(result.code, result.output).toBe(18);
      expect(result.output).toContain(`${failing} did not answer`);
      expect(result.output).toContain(`within ${FAILING_HEALTH_TIMEOUT_SECONDS} s. Switching back to`);

      expect(report.failed, figures(report)).toEqual([]);
      expect(report.assetNotFound).toEqual([]);
      expect(report.enquiriesAccepted.length).toBeGreaterThan(5);
      expect(site.enquiryMessages()).toEqual(expect.arrayContaining(report.enquiriesAccepted));
      expect((await client.get("/")).body).toContain(REHEARSAL_TEXT);
      // The failing release is gone; the one before is live, as it was.
      expect(readFileSync(path.join(site.checkout, "releases/releases.json"), "utf8")).toBe(live);
    });
  } finally {
    test.info().annotations.push({ type: "runtime", description: `${Math.round((Date.now() - started) / 1000)} s` });
    console.log(`The update test took ${Math.round((Date.now() - started) / 1000)} s.`);
  }
});
