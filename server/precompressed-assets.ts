import { existsSync } from "node:fs";
import path from "node:path";
import type { RequestHandler } from "express";

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

/**
 * Serves the .br or .gz copy the build wrote beside a hashed asset
 * (scripts/precompress-assets.mjs) when the browser accepts it; otherwise
 * the request falls through to express.static and on-the-fly compression.
 */
export function precompressedAssets(assetsDir: string): RequestHandler {
  // Hashed names never change while the server runs: look each one up once.
  const known = new Map<string, { br: boolean; gz: boolean }>();
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    const type = CONTENT_TYPES[path.extname(name)];
    if (!type || name.includes("/") || name.startsWith(".")) return next();
    let copies = known.get(name);
    if (!copies) {
      copies = { br: existsSync(path.join(assetsDir, `${name}.br`)), gz: existsSync(path.join(assetsDir, `${name}.gz`)) };
      known.set(name, copies);
    }
    const accepted = req.get("accept-encoding") ?? "";
    const encoding = copies.br && /\bbr\b/.test(accepted) ? "br" : copies.gz && /\bgzip\b/.test(accepted) ? "gzip" : null;
    if (!encoding) return next();
    res.set({ "Content-Type": type, "Content-Encoding": encoding, Vary: "Accept-Encoding" });
    const file = path.join(assetsDir, `${name}.${encoding === "br" ? "br" : "gz"}`);
    res.sendFile(file, { maxAge: "1y", immutable: true }, (error) => {
      if (error) next(error);
    });
  };
}
