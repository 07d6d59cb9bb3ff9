/**
 * The sign-in throttle under load: what floods cost, and whether the owner still gets in.
 *
 *   npx tsx scripts/bench-sign-in.ts          # alone
 *   npm run bench -- --only=sign-in          # as a part of npm run bench
 *
 * Runs the real app (Express, SQLite in a temporary DATA_DIR) on a loopback port with
 * TRUST_PROXY=loopback, so each request names its client in X-Forwarded-For. Prints a table
 * and returns the figures for reports/bench.json. Nothing here is asserted: the tests count
 * verifications; this measures time.
 */
import fs from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureAdministrator, hashPassword } from "../app/auth/auth.server";
import { parseEnv } from "../app/env.server";
import { systemClock } from "../app/lib/clock";
import { createLogger } from "../app/lib/logger.server";
import { createRateLimiter } from "../app/db/rate-limit.server";
import { createApp } from "../server/app";
import { openServices } from "../server/bootstrap";
import { median, round } from "./lib/bench-report";

const ADMIN = { username: "owner", password: "the bench password" };
const WRONG = { username: ADMIN.username, password: "a wrong guess" };

export type SignInBench = {
  argon2VerifyMs: number;
  limiterHitMicroseconds: number;
  floods: {
    label: string;
    requests: number;
    seconds: number;
    verifications: number;
    answered429: number;
    answered401: number;
  }[];
  ownerDuringFloodMs: number;
  ownerStatusDuringFlood: number;
};

export async function benchSignIn(): Promise<SignInBench> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-sign-in-"));
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent", TRUST_PROXY: "loopback" });
  const services = await openServices(env, createLogger({ level: "silent" }));
  await ensureAdministrator(services, ADMIN);
  const server = createServer(createApp(services)).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = (body: object, from: string, cookie?: string) =>
    fetch(`${base}/api/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": from, ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify(body),
    });
  const clearLimits = () => services.db.deleteFrom("rate_limit_counters").execute();

  try {
    // One argon2id verification (the library's cost), for scale.
    const hash = await hashPassword(ADMIN.password);
    const { verify } = await import("@node-rs/argon2");
    const verifyTimes: number[] = [];
    for (let i = 0; i < 9; i++) {
      const start = performance.now();
      await verify(hash, "wrong password");
      verifyTimes.push(performance.now() - start);
    }

    // The database limiter alone: one upsert per hit.
    const limiter = createRateLimiter(services.db, systemClock, { scope: "bench", limit: 5, windowMs: 60_000 });
    const hits = 5_000;
    const limiterStart = performance.now();
    for (let i = 0; i < hits; i++) await limiter.hit(`key-${i % 500}`);
    const limiterHitMicroseconds = ((performance.now() - limiterStart) * 1000) / hits;

    const floods: SignInBench["floods"] = [];
    const flood = async (label: string, requests: number, from: (i: number) => string) => {
      await clearLimits();
      const before = services.signIn.meter.verifications;
      const start = performance.now();
      const statuses = await Promise.all(
        Array.from({ length: requests }, (_, i) => post(WRONG, from(i)).then((r) => r.status)),
      );
      floods.push({
        label,
        requests,
        seconds: round((performance.now() - start) / 1000, 2),
        verifications: services.signIn.meter.verifications - before,
        answered429: statuses.filter((s) => s === 429).length,
        answered401: statuses.filter((s) => s === 401).length,
      });
    };
    await flood("500 at once from one address", 500, () => "198.51.100.1");
    await flood("500 at once from 500 addresses", 500, (i) => `10.${(i >> 8) & 255}.${i & 255}.1`);

    // The owner, with a device cookie, signing in while 200 addresses flood.
    await clearLimits();
    const first = await post(ADMIN, "192.0.2.10");
    const device = first.headers
      .getSetCookie()
      .find((c) => c.startsWith("cornerstone_device="))!
      .split(";")[0]!;
    await clearLimits();
    const background = Promise.all(Array.from({ length: 200 }, (_, i) => post(WRONG, `10.200.${i}.1`)));
    const ownerStart = performance.now();
    const owner = await post(ADMIN, "192.0.2.10", device);
    const ownerDuringFloodMs = performance.now() - ownerStart;
    await background;

    const result: SignInBench = {
      argon2VerifyMs: round(median(verifyTimes), 1),
      limiterHitMicroseconds: round(limiterHitMicroseconds, 1),
      floods,
      ownerDuringFloodMs: round(ownerDuringFloodMs, 1),
      ownerStatusDuringFlood: owner.status,
    };
    console.log("\n== Sign-in under load");
    console.log(
      `argon2id verify (median of 9): ${result.argon2VerifyMs} ms; database limiter hit: ${result.limiterHitMicroseconds} µs`,
    );
    for (const f of floods) {
      console.log(
        `${f.label}: ${f.seconds} s, ${f.verifications} verifications, ${f.answered429}×429, ${f.answered401}×401`,
      );
    }
    console.log(
      `owner with a device cookie during a 200-address flood: ${owner.status} in ${result.ownerDuringFloodMs} ms`,
    );
    return result;
  } finally {
    server.close();
    await services.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await benchSignIn();
}
