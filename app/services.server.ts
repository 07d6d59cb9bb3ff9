import type { Database } from "~/db/database.server";
import type { Env } from "~/env.server";
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
  limits: {
    /** Spec/issue: 5 enquiries per IP per 10 minutes. */
    contact: RateLimiter;
    /** 5 failed sign-ins per IP per 15 minutes. */
    login: RateLimiter;
  };
  /** Called after any write that changes what public pages show. */
  publicContentChanged(): void;
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
  }
}

export function createServices(parts: {
  env: Env;
  db: Database;
  logger: Logger;
  storage: ObjectStorage;
  /** The server passes its public-page cache invalidation here. */
  onPublicContentChanged?: () => void;
  /** Closes what the services hold; by default the database. */
  close?: () => Promise<void>;
}): AppServices {
  const { onPublicContentChanged, close, ...rest } = parts;
  return {
    ...rest,
    limits: {
      contact: createRateLimiter({ limit: 5, windowMs: 10 * 60_000 }),
      login: createRateLimiter({ limit: 5, windowMs: 15 * 60_000 }),
    },
    publicContentChanged: onPublicContentChanged ?? (() => {}),
    close: close ?? (() => rest.db.destroy()),
  };
}
