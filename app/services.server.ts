import { createAnalytics, type Analytics } from "~/analytics/analytics.server";
import { createSignInGuard, type SignInGuard } from "~/auth/sign-in.server";
import type { SignInKeys } from "~/auth/keys.server";
import type { Database } from "~/db/database.server";
import type { Env } from "~/env.server";
import { identity } from "~/identity";
import type { ImageWorker } from "~/images/image-worker.server";
import { createAddressKeyer, type AddressKeyer } from "~/lib/client-address.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import { createRateLimiter, type RateLimiter } from "~/db/rate-limit.server";
import { createSignal, type Signal } from "~/lib/signal";
import { mailSetupFromEnv, type MailSetup } from "~/notifications/mailer.server";
import type { BucketPrivacy } from "~/storage/bucket-privacy";
import type { ObjectStorage, PartUploadSupport } from "~/storage/storage.server";

/**
 * Everything request handlers need, built once at start-up and handed to the
 * API routers and (through the load context) to route loaders and actions.
 */
export type AppServices = {
  env: Env;
  db: Database;
  logger: Logger;
  storage: ObjectStorage;
  /** What the start-up check found: can anyone download originals and backups from the bucket? */
  bucketPrivacy: BucketPrivacy;
  /** What the start-up check found: can the admin page send photos in parts, which survive a dropped connection? */
  partUploads: PartUploadSupport;
  /** The time, injected so tests of schedules, leases and limits move it instead of waiting. */
  clock: Clock;
  /** The key every per-address limit and record uses: a keyed hash of the normalised address. */
  addressKey: AddressKeyer;
  /** The sharp pipeline in its own process (started and stopped by server/start.ts). */
  images: ImageWorker;
  limits: {
    /** Spec/issue: 5 enquiries per address per 10 minutes (in the database, shared by every process). */
    contact: RateLimiter;
    /** 25 photo uploads per address per 10 minutes (5 enquiries × 5 photos; decision 0056). */
    enquiryPhotos: RateLimiter;
  };
  /** Sign-in limits, the verification gate, device cookies (app/auth/sign-in.server.ts). */
  signIn: SignInGuard;
  /** Called after any write that changes what public pages show. */
  publicContentChanged(): void;
  /** E-mail notifications; null when SMTP_URL is unset: notifications are off. */
  mail: MailSetup | null;
  /** Wakes the mail outbox's worker when a job is queued (app/notifications/outbox.server.ts). */
  outboxWake: Signal;
  /** Privacy-first visit counting; started and stopped by server/start.ts. */
  analytics: Analytics;
  /** Closes the database, storage and change-feed connections. */
  close(): Promise<void>;
};

declare module "react-router" {
  interface AppLoadContext {
    services: AppServices;
    /** Fresh per response; the CSP header carries the same value. */
    cspNonce: string;
    /** The visitor's address, as Express resolved it (honours TRUST_PROXY). */
    clientIp: string;
    /**
     * Loaders call this when they showed fallback content because the
     * database failed: such a render is sent, but never cached.
     */
    markDegraded(): void;
    /**
     * A post from another site (server/middleware/cross-site.ts): the page is
     * rendered as for a GET, no action runs, and the page says why.
     */
    crossSiteRefused: boolean;
  }
}

/** Why uploads in parts are off where start-up did not check them (the scripts, which take no uploads). */
export const PART_UPLOADS_NOT_CHECKED = "Uploads in parts were not checked when this process started.";

export function createServices(parts: {
  env: Env;
  db: Database;
  logger: Logger;
  storage: ObjectStorage;
  /** The start-up privacy check's finding; "no-bucket" when not given (the local disk). */
  bucketPrivacy?: BucketPrivacy;
  /** The start-up check of uploads in parts; when not given, they are off (nothing checked them). */
  partUploads?: PartUploadSupport;
  keys: SignInKeys;
  clock?: Clock;
  images: ImageWorker;
  /** The server passes its public-page cache invalidation here. */
  onPublicContentChanged?: () => void;
  /** Defaults to the mail settings in the environment. */
  mail?: MailSetup | null;
  /** Closes what the services hold; by default the database. */
  close?: () => Promise<void>;
}): AppServices {
  const {
    onPublicContentChanged,
    keys,
    clock = systemClock,
    mail,
    close,
    bucketPrivacy = { status: "no-bucket" },
    partUploads = { available: false, reason: PART_UPLOADS_NOT_CHECKED },
    ...rest
  } = parts;
  const addressKey = createAddressKeyer(keys.clientAddress);
  return {
    ...rest,
    bucketPrivacy,
    partUploads,
    clock,
    addressKey,
    mail: mail === undefined ? mailSetupFromEnv(rest.env) : mail,
    outboxWake: createSignal(),
    limits: {
      contact: createRateLimiter(rest.db, clock, {
        scope: "contact",
        limit: 5,
        windowMs: 10 * 60_000,
        keyOf: addressKey,
      }),
      enquiryPhotos: createRateLimiter(rest.db, clock, {
        scope: "enquiry-photos",
        limit: 25,
        windowMs: 10 * 60_000,
        keyOf: addressKey,
      }),
    },
    signIn: createSignInGuard({
      db: rest.db,
      clock,
      addressKey,
      deviceCookieKey: keys.deviceCookie,
      twoStepKey: keys.twoStep,
    }),
    publicContentChanged: onPublicContentChanged ?? (() => {}),
    analytics: createAnalytics({
      db: rest.db,
      logger: rest.logger,
      clock,
      enabled: rest.env.ANALYTICS === "on",
      timeZone: identity.timeZone,
    }),
    close: close ?? (() => rest.db.destroy()),
  };
}
