import { createAnalytics, type Analytics } from "~/analytics/analytics.server";
import type { Database } from "~/db/database.server";
import type { Env } from "~/env.server";
import { identity } from "~/identity";
import { systemClock, type Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import { createRateLimiter, type RateLimiter } from "~/lib/rate-limiter.server";
import type { ObjectStorage } from "~/storage/storage.server";

/**
 * Everything request handlers need, built once at start-up and handed to the
 * API routers and (through the load context) to route loaders and actions.
 */
export type AppServices = {
  env: Env;
  db: Database;
  logger: Logger;
  storage: ObjectStorage;
  /** Time for stored timestamps and background work; tests pass a manual clock. */
  clock: Clock;
  limits: {
    /** Spec/issue: 5 enquiries per IP per 10 minutes. */
    contact: RateLimiter;
    /** 5 failed sign-ins per IP per 15 minutes. */
    login: RateLimiter;
  };
  /** Called after any write that changes what public pages show. */
  publicContentChanged(): void;
  /** Privacy-first visit counting; started and stopped by server/start.ts. */
  analytics: Analytics;
};

declare module "react-router" {
  interface AppLoadContext {
    services: AppServices;
    /** Fresh per response; the CSP header carries the same value. */
    cspNonce: string;
    /** The visitor's address, as Express resolved it (honours TRUST_PROXY). */
    clientIp: string;
  }
}

export function createServices(parts: {
  env: Env;
  db: Database;
  logger: Logger;
  storage: ObjectStorage;
  clock?: Clock;
  /** The server passes its public-page cache invalidation here. */
  onPublicContentChanged?: () => void;
}): AppServices {
  const { onPublicContentChanged, ...rest } = parts;
  const clock = parts.clock ?? systemClock;
  return {
    ...rest,
    clock,
    limits: {
      contact: createRateLimiter({ limit: 5, windowMs: 10 * 60_000 }),
      login: createRateLimiter({ limit: 5, windowMs: 15 * 60_000 }),
    },
    publicContentChanged: onPublicContentChanged ?? (() => {}),
    analytics: createAnalytics({
      db: parts.db,
      logger: parts.logger,
      clock,
      enabled: parts.env.ANALYTICS === "on",
      timeZone: identity.timeZone,
    }),
  };
}
