import { randomBytes } from "node:crypto";
import type { RequestHandler } from "express";
import helmet from "helmet";

export const createNonce = () => randomBytes(16).toString("base64");

/** A fresh CSP nonce for every response, shared by the header and the page's scripts. */
export const assignNonce: RequestHandler = (_req, res, next) => {
  res.locals.cspNonce = createNonce();
  next();
};

export const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

type CspLocals = { cspNonce: string };
// Helmet types the response as Node's; Express's locals are on it all the same.
const localsOf = (res: unknown) => (res as { locals: CspLocals }).locals;

/**
 * Helmet with an enforced CSP: scripts from this origin or with this response's nonce (cached copies add their
 * inline scripts' hashes). A bucket adds its origin to connect-src, MEDIA_BASE_URL to img-src; nothing broader.
 */
export function securityHeaders(options: {
  development: boolean;
  /** Origins the browser uploads to (the bucket's), added to connect-src. */
  uploadOrigins?: readonly string[];
  /** Origins images are served from besides this one (MEDIA_BASE_URL's), added to img-src. */
  mediaOrigins?: readonly string[];
}): RequestHandler {
  return helmet({
    contentSecurityPolicy: options.development
      ? false
      : {
          useDefaults: false,
          directives: {
            defaultSrc: ["'self'"],
            scriptSrc: ["'self'", (_req, res) => `'nonce-${localsOf(res).cspNonce}'`],
            scriptSrcAttr: ["'none'"],
            // Inline style attributes carry image placeholders and Radix positions.
            styleSrc: ["'self'", "'unsafe-inline'"],
            imgSrc: ["'self'", "data:", "blob:", ...(options.mediaOrigins ?? [])],
            fontSrc: ["'self'"],
            connectSrc: ["'self'", ...(options.uploadOrigins ?? [])],
            manifestSrc: ["'self'"],
            formAction: ["'self'"],
            frameAncestors: ["'none'"],
            objectSrc: ["'none'"],
            baseUri: ["'self'"],
            upgradeInsecureRequests: null,
          },
        },
    // HSTS only makes sense (and is only honoured) over HTTPS.
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    // Matches frame-ancestors 'none' for browsers that only know the older header.
    xFrameOptions: { action: "deny" },
  });
}

/** HSTS whenever SITE_URL is https://, else when this request came over HTTPS. */
export function hstsOverHttps(options: { httpsSite: boolean }): RequestHandler {
  return (req, res, next) => {
    if (options.httpsSite || req.secure) res.set("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
    next();
  };
}

export const permissionsPolicy: RequestHandler = (_req, res, next) => {
  res.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()");
  next();
};
