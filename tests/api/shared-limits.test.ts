// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureAdministrator } from "~/auth/auth.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { ADMIN } from "./helpers";

// The sign-in throttle and the contact limit hold across instances and restarts.

let dataDir: string;
let opened: AppServices[];
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-shared-"));
  opened = [];
});
afterEach(async () => {
  for (const services of opened) await services.db.destroy();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** One app instance over the shared DATA_DIR (as a second process would be). */
async function instance() {
  const services = await openServices(
    parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }),
    createLogger({ level: "silent" }),
  );
  opened.push(services);
  await ensureAdministrator(services, ADMIN);
  return { services, api: supertest(createApp(services)) };
}

const ENQUIRY = { name: "A visitor", email: "visitor@example.com", message: "Please quote for a stone wall." };
const WRONG = { username: ADMIN.username, password: "a wrong guess" };

describe("limits kept in the database", () => {
  it("count attempts made to two instances together", async () => {
    const a = await instance();
    const b = await instance();
    // Five different enquiries (the same one again would be answered as the first, not counted).
    const nth = (i: number) => ({ ...ENQUIRY, message: `${ENQUIRY.message} (${i})` });
    for (let i = 0; i < 3; i++) await a.api.post("/api/contact").send(nth(i)).expect(201);
    for (let i = 3; i < 5; i++) await b.api.post("/api/contact").send(nth(i)).expect(201);
    await a.api.post("/api/contact").send(nth(5)).expect(429);

    for (let i = 0; i < 3; i++) await a.api.post("/api/login").send(WRONG).expect(401);
    for (let i = 0; i < 2; i++) await b.api.post("/api/login").send(WRONG).expect(401);
    await a.api.post("/api/login").send(ADMIN).expect(429);
    await b.api.post("/api/login").send(ADMIN).expect(429);
  });

  it("survive a restart", async () => {
    const first = await instance();
    for (let i = 0; i < 5; i++) await first.api.post("/api/login").send(WRONG).expect(401);
    await first.services.db.destroy();
    opened = [];
    const restarted = await instance();
    const res = await restarted.api.post("/api/login").send(ADMIN).expect(429);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(14 * 60);
  });
});
