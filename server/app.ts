import type { RequestListener } from "node:http";
import path from "node:path";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { pingDatabase } from "~/db/database.server";
import type { AppServices } from "~/services.server";
import { createApiRouter } from "./api/router";
import { createCachedPageResponder } from "./cached-page-responder";
import { HttpError } from "./http-error";
import { mediaRouter } from "./media";
import { clientAddress, createPageViewCounter, rememberedTrust, type TrustFunction } from "./page-view-counter";
import { missingAsset, precompressedAssets } from "./precompressed-assets";
import { contactMultipart } from "./middleware/contact-multipart";
import { refuseCrossSitePagePosts } from "./middleware/cross-site";
import { requestLogger } from "./middleware/request-logger";
import { createRequestBounds } from "./middleware/request-bounds";
import { isHttpsSite } from "./middleware/session";
import { createPhotoDisk } from "./photo-intake/photo-disk";
import type { PageCache } from "./page-cache";
import { assignNonce, hstsOverHttps, permissionsPolicy, securityHeaders } from "./middleware/security-headers";
import { reactRouterHandler, type ReactRouterBuild } from "./react-router-handler";

export type CreateAppOptions = {
  /** The React Router build; without it the app serves only the API (API tests). */
  reactRouter?: { build: ReactRouterBuild; mode: "production" | "development" };
  /** build/client: hashed assets and public files. */
  clientAssetsDir?: string;
  /** Vite's middleware in development. */
  devMiddleware?: RequestHandler;
  /** Rendered public pages, kept until the next content or gallery write. */
  pageCache?: PageCache;
};

/** The HTTP application: security headers, compression, /api, static assets, then React Router. */
export function createApp(services: AppServices, options: CreateAppOptions = {}) {
  const development = options.reactRouter?.mode === "development";
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", services.env.TRUST_PROXY);
  app.set("etag", false);

  app.use(requestLogger(services.logger));
  app.use(assignNonce);
  app.use(
    securityHeaders({
      development,
      uploadOrigins: services.storage.uploadOrigins,
      mediaOrigins: services.env.MEDIA_BASE_URL ? [new URL(services.env.MEDIA_BASE_URL).origin] : [],
    }),
  );
  app.use(hstsOverHttps({ httpsSite: isHttpsSite(services.env) }));
  app.use(permissionsPolicy);
  app.use(compression());

  app.get("/healthz", async (_req, res) => {
    try {
      await pingDatabase(services.db);
      res.set("Cache-Control", "no-store").json({ status: "ok" });
    } catch (error) {
      services.logger.error({ err: error }, "health check: database unreadable");
      res.status(503).set("Cache-Control", "no-store").json({ message: "Database unavailable" });
    }
  });

  // The admin area stays out of shared caches and search engines, whatever the page sets.
  app.use("/admin", (_req, res, next) => {
    res.set({ "Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow" });
    next();
  });

  // Disk for visitors' photos while they arrive, shared by both ways in.
  const photoDisk = createPhotoDisk(services.env.ENQUIRY_PHOTO_UPLOADS_MB * 1024 * 1024);
  app.use("/api", createApiRouter(services, { pageCache: options.pageCache, photoDisk }));
  app.use("/media", mediaRouter(services));

  if (options.devMiddleware) app.use(options.devMiddleware);
  if (options.clientAssetsDir) {
    // Fingerprinted file names: safe to cache forever.
    app.use("/assets", precompressedAssets(path.join(options.clientAssetsDir, "assets")));
    app.use(
      "/assets",
      express.static(path.join(options.clientAssetsDir, "assets"), { immutable: true, maxAge: "1y", index: false }),
    );
    app.use("/assets", missingAsset);
    app.use(express.static(options.clientAssetsDir, { maxAge: "1h", index: false }));
  }

  if (options.reactRouter) {
    app.use(refuseCrossSitePagePosts(services.env));
    // The no-JS contact form with photos; every other page post keeps the 64 KB limit.
    app.use(contactMultipart(services, photoDisk));
    app.use(reactRouterHandler({ ...options.reactRouter, services, pageCache: options.pageCache }));
  }

  app.use(pageErrorHandler(services));
  return app;
}

/** Every request is held to the request bounds first; cached public pages are answered before Express. */
export function createRequestListener(services: AppServices, options: CreateAppOptions = {}): RequestListener {
  const app = createApp(services, options);
  const trust = rememberedTrust(app.get("trust proxy fn") as TrustFunction);
  const bounds = createRequestBounds({
    clock: services.clock,
    logger: services.logger,
    clientAddress: (req) => clientAddress(req, trust),
  });
  // Visit counting from the page requests themselves (decision 0032); null when off.
  const pageViews = createPageViewCounter(app, services);
  const respondFromCache =
    options.pageCache &&
    createCachedPageResponder(app, options.pageCache, services.logger, { httpsSite: isHttpsSite(services.env) });
  return (req, res) => {
    if (!bounds.admit(req, res)) return;
    if (respondFromCache && respondFromCache(req, res)) {
      pageViews?.countAnswered(req, res);
      return;
    }
    pageViews?.countWhenAnswered(req, res);
    app(req, res);
  };
}

/** Last resort outside /api: a plain page, never a stack trace. */
function pageErrorHandler(services: AppServices): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const status = error instanceof HttpError ? error.status : 500;
    if (status >= 500) services.logger.error({ err: error, method: req.method, path: req.path }, "request failed");
    if (res.headersSent) {
      res.end();
      return;
    }
    res
      .status(status)
      .type("text/plain")
      .send(status === 413 ? "Request body too large" : "Something went wrong. Please try again.");
  };
}
