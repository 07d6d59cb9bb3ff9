import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import supertest from "supertest";
import { ensureAdministrator } from "~/auth/auth.server";
import { submitEnquiry } from "~/contact/submissions.server";
import { parseEnv } from "~/env.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createOutbox } from "~/notifications/outbox.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { imageWorkerFromSource } from "../../server/child-process-sources";
import { ADMIN, acquireBackend } from "./helpers";

/**
 * The real app and mail outbox over this run's back end (a SQLite file, or a
 * PostgreSQL database and a bucket), with a manual clock
 * (tests move time instead of waiting) and, when `smtpUrl` is given, the real
 * mail adapter pointed at a test SMTP server. `restart()` closes everything and
 * opens the same data directory and database again, as a server restart would.
 */
export const NOTIFY_EMAIL = "owner@example.nz";
export const MAIL_FROM = "Cornerstone Website <website@cornerstone.example.nz>";
// Plain http: supertest keeps no Secure cookies, and an https:// site makes them Secure.
export const SITE_URL = "http://stone.example.nz";

type Backend = Awaited<ReturnType<typeof acquireBackend>>;
type Options = {
  smtpUrl?: string | null;
  env?: Record<string, string>;
  clock?: ManualClock;
  dataDir?: string;
  backend?: Backend;
  /** Starts the image worker (enquiry photos go through it). */
  imageWorker?: boolean;
};

export async function createMailContext(options: Options = {}) {
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-mail-")));
  // 1 March 2026, 9:00 AM in New Plymouth (NZDT).
  const clock = options.clock ?? createManualClock("2026-02-28T20:00:00.000Z");
  const mailEnv: Record<string, string> = options.smtpUrl ? { SMTP_URL: options.smtpUrl, MAIL_FROM, NOTIFY_EMAIL } : {};
  const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", SITE_URL };
  const backend = options.backend ?? (await acquireBackend(base));
  const env = parseEnv({
    ...base,
    ...backend.env,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ...mailEnv,
    ...options.env,
  });
  const services = await openServices(env, createLogger({ level: env.LOG_LEVEL }), {
    clock,
    ...(options.imageWorker ? { imageWorker: imageWorkerFromSource() } : {}),
  });
  if (options.imageWorker) await services.images.start();
  await ensureAdministrator(services, { username: ADMIN.username, password: ADMIN.password });
  const app = createApp(services);
  const outbox = createOutbox(services);
  const admin = supertest.agent(app);
  await admin.post("/api/login").send(ADMIN).expect(200);
  // The set-up's own sign-in came from a new browser; its alert is not what these tests look at.
  await services.db.deleteFrom("notification_jobs").where("kind", "=", "sign-in").execute();
  let ipCounter = 0;

  const context = {
    dataDir,
    clock,
    services,
    app,
    api: supertest(app),
    admin,
    outbox,
    /** Stores an enquiry as the contact form does (each from its own address, so the per-IP limit never trips). */
    async enquire(values: { name: string; email?: string; phone?: string; message?: string }) {
      ipCounter += 1;
      const outcome = await submitEnquiry(
        services,
        { email: "visitor@example.com", message: "Could you quote for a garden wall, please?", ...values },
        `10.9.${Math.floor(ipCounter / 250)}.${ipCounter % 250}`,
      );
      if (outcome.status !== "stored") throw new Error(`Enquiry not stored: ${JSON.stringify(outcome)}`);
      return outcome.submission;
    },
    /** The enquiry as the admin API lists it. */
    async item(id: string) {
      const res = await admin.get("/api/admin/contact-submissions?limit=200").expect(200);
      const found = (res.body as { id: string }[]).find((entry) => entry.id === id);
      if (!found) throw new Error(`Enquiry ${id} is not listed`);
      return found as { id: string; readAt: string | null; notification: Record<string, unknown> };
    },
    /** A graceful stop of this "server", then a fresh start on the same data directory and clock. */
    async restart(overrides: Omit<Options, "dataDir" | "clock"> = {}) {
      await outbox.stop();
      await services.close();
      return createMailContext({
        smtpUrl: options.smtpUrl,
        env: options.env,
        imageWorker: options.imageWorker,
        ...overrides,
        dataDir,
        clock,
        backend,
      });
    },
    async close() {
      await outbox.stop();
      await services.close();
      await backend.release();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
  return context;
}

export type MailContext = Awaited<ReturnType<typeof createMailContext>>;
