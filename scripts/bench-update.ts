/**
 * `npm run bench -- --only=update`: docs/DEPLOY.md's step 11 under the update test's steady load
 * (tests/support/update-rehearsal.ts, tests/support/steady-load.ts), with the guide's 60 s health
 * check: an update to a new release, then one to a release that cannot start. Reports how long the
 * longest request waited (held in the socket while Node restarted), how long the restart left no
 * process serving, and what failed (nothing, if all is well). Figures, not a test: a busy machine
 * makes every wait longer.
 */
import { photoLikeJpeg } from "./lib/photo-like-jpeg";
import { round, table } from "./lib/bench-report";
import { siteClient, startSteadyLoad, type LoadReport } from "../tests/support/steady-load";
import { startRehearsal, type Rehearsal } from "../tests/support/update-rehearsal";

export type UpdateFigures = {
  exitCode: number | null;
  updateSeconds: number;
  requests: number;
  perKind: LoadReport["perKind"];
  failed: number;
  assetNotFound: number;
  enquiriesAccepted: number;
  enquiriesStored: number;
  longestWaitSeconds: number;
  /** From SIGTERM to the old process's exit: requests in flight finishing. */
  drainSeconds: number | null;
  /** From SIGTERM until the new process was started (the restart's own gap). */
  restartSeconds: number | null;
};

async function measuredUpdate(
  site: Rehearsal,
  client: ReturnType<typeof siteClient>,
  photo: Buffer,
  tag: string,
): Promise<UpdateFigures> {
  const eventsBefore = site.events().length;
  const load = startSteadyLoad({ client, photo, viewers: 2, viewEveryMs: 1000, enquiryEveryMs: 1000, tag });
  const started = Date.now();
  const result = await site.update();
  const updateSeconds = (Date.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const report = await load.stop();
  const events = site.events().slice(eventsBefore);
  const sigterm = events.find((event) => event.what.startsWith("SIGTERM"));
  const stopped = events.find((event) => event.what.startsWith("stopped"));
  const next = sigterm ? events.find((event) => event.at >= sigterm.at && event.what.startsWith("started")) : undefined;
  const stored = new Set(site.enquiryMessages());
  return {
    exitCode: result.code,
    updateSeconds: round(updateSeconds, 1),
    requests: report.requests,
    perKind: report.perKind,
    failed: report.failed.length,
    assetNotFound: report.assetNotFound.length,
    enquiriesAccepted: report.enquiriesAccepted.length,
    enquiriesStored: report.enquiriesAccepted.filter((message) => stored.has(message)).length,
    longestWaitSeconds: round(report.longestWaitMs / 1000, 2),
    drainSeconds: sigterm && stopped ? round((stopped.at - sigterm.at) / 1000, 2) : null,
    restartSeconds: sigterm && next ? round((next.at - sigterm.at) / 1000, 2) : null,
  };
}

export async function benchUpdate(): Promise<{ update: UpdateFigures; failingUpdate: UpdateFigures }> {
  const site = await startRehearsal();
  try {
    const client = siteClient(site.caddy.url, site.caddy.rootCertificate);
    const photo = await photoLikeJpeg({ width: 800, height: 600, quality: 85 });
    await site.commitGoodRelease();
    console.error("update to a new release, under load…");
    const update = await measuredUpdate(site, client, photo, "bench update");
    await site.commitFailingRelease();
    console.error("update to a release that cannot start, under load (the guide's 60 s health check)…");
    const failingUpdate = await measuredUpdate(site, client, photo, "bench failing update");
    const row = (name: string, f: UpdateFigures) => [
      name,
      String(f.exitCode),
      `${f.updateSeconds} s`,
      String(f.requests),
      `${f.failed} / ${f.assetNotFound}`,
      `${f.enquiriesStored} of ${f.enquiriesAccepted}`,
      `${f.longestWaitSeconds} s`,
      f.drainSeconds === null ? "-" : `${f.drainSeconds} s`,
    ];
    console.log("\n== Update (npm run update under load, through Caddy)");
    console.log(
      table(
        [
          "update",
          "exit",
          "took",
          "requests",
          "failed / asset 404",
          "enquiries stored",
          "longest wait",
          "old process drained in",
        ],
        [row("new release", update), row("release that cannot start", failingUpdate)],
      ),
    );
    return { update, failingUpdate };
  } finally {
    await site.stop();
  }
}
