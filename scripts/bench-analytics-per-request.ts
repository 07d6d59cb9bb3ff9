/**
 * The "per request" part of the analytics bench (scripts/bench-analytics.ts): the in-process CPU
 * time of what visit counting adds to a request, median of 5 runs.
 */
import fs from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import express from "express";
import { createAnalytics } from "~/analytics/analytics.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createPageViewCounter } from "../server/page-view-counter";
import { BROWSER } from "./bench-analytics-load";
import { median, round } from "./lib/bench-report";

function fakeRequest(url: string, headers: Record<string, string>): IncomingMessage {
  const socket = { remoteAddress: "127.0.0.1" };
  return { method: "GET", url, headers, socket, connection: socket } as unknown as IncomingMessage;
}

/**
 * CPU nanoseconds per call: the median of 5 runs of `iterations` calls each. CPU time, not wall
 * time, so other processes sharing the cores do not inflate it.
 */
function timePerCall(iterations: number, call: (i: number) => void): number {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    for (let i = 0; i < 2000; i++) call(i); // warm-up
    const started = process.cpuUsage();
    for (let i = 0; i < iterations; i++) call(i);
    const used = process.cpuUsage(started);
    runs.push(((used.user + used.system) * 1000) / iterations);
  }
  return round(median(runs), 0);
}

export async function perRequest() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-analytics-"));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    const logger = createLogger({ level: "silent" });
    // Caps raised so the distinct-visitor run measures hashing and inserting, not dropping.
    const analytics = createAnalytics({
      db,
      logger,
      clock: systemClock,
      enabled: true,
      timeZone: "Pacific/Auckland",
      limits: { maxBufferedVisitors: 1e7 },
    });
    await analytics.start();
    const app = express();
    app.set("trust proxy", "loopback");
    const env = parseEnv({ DATA_DIR: dir, LOG_LEVEL: "silent" });
    const counter = createPageViewCounter(app, { analytics, env })!;
    const res = { statusCode: 200 } as ServerResponse;
    const iterations = 200_000;

    const asset = fakeRequest("/assets/root-abc123.js", { "user-agent": BROWSER });
    const bot = fakeRequest("/", {
      "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    });
    const returning = fakeRequest("/", {
      "user-agent": BROWSER,
      "x-forwarded-for": "203.0.113.9",
      referer: "https://www.google.com/",
    });
    const distinct = Array.from({ length: 4096 }, (_, i) =>
      fakeRequest("/", {
        "user-agent": BROWSER,
        "x-forwarded-for": `10.${(i >> 8) & 255}.${i & 255}.${(i * 7) & 255}`,
      }),
    );

    const results = {
      notAPageViewNs: timePerCall(iterations, () => counter.countAnswered(asset, res)),
      botNs: timePerCall(iterations, () => counter.countAnswered(bot, res)),
      browserReturningVisitorNs: timePerCall(iterations, () => counter.countAnswered(returning, res)),
      browserNewVisitorNs: timePerCall(20_000, (i) => counter.countAnswered(distinct[i % distinct.length]!, res)),
    };
    await analytics.stop();
    console.log(
      [
        "Per request (CPU time, median of 5 runs, in process):",
        `  not a page view (e.g. /assets/…)           ${results.notAPageViewNs} ns`,
        `  a bot's page view (not counted)             ${results.botNs} ns`,
        `  a browser's view, returning visitor         ${results.browserReturningVisitorNs} ns`,
        `  a browser's view, visitor new to the buffer ${results.browserNewVisitorNs} ns`,
      ].join("\n"),
    );
    return results;
  } finally {
    await db.destroy();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
