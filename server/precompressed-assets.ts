import { readdirSync } from "node:fs";
import path from "node:path";
import type { RequestHandler } from "express";

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

type Copies = { br: boolean; gz: boolean };

/** The build's .br and .gz copies, listed once; an unlisted name costs one lookup. */
export function listPrecompressedAssets(assetsDir: string): ReadonlyMap<string, Copies> {
  let names: string[];
  try {
    names = readdirSync(assetsDir);
  } catch {
    return new Map();
  }
  const present = new Set(names);
  const copies = new Map<string, Copies>();
  for (const name of names) {
    if (!CONTENT_TYPES[path.extname(name)]) continue;
    const found = { br: present.has(`${name}.br`), gz: present.has(`${name}.gz`) };
    if (found.br || found.gz) copies.set(name, found);
  }
  return copies;
}

/** Serves a hashed asset's .br or .gz copy when accepted; else express.static and on-the-fly compression. */
export function precompressedAssets(assetsDir: string): RequestHandler {
  const known = listPrecompressedAssets(assetsDir);
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    const copies = known.get(name);
    if (!copies) return next();
    // A coding the browser gives q=0 it refuses.
    const encoding =
      copies.br && req.acceptsEncodings("br") ? "br" : copies.gz && req.acceptsEncodings("gzip") ? "gzip" : null;
    if (!encoding) return next();
    res.set({
      "Content-Type": CONTENT_TYPES[path.extname(name)]!,
      "Content-Encoding": encoding,
      Vary: "Accept-Encoding",
    });
    const file = path.join(assetsDir, `${name}.${encoding === "br" ? "br" : "gz"}`);
    res.sendFile(file, { maxAge: "1y", immutable: true }, (error) => {
      if (error) next(error);
    });
  };
}

/** A hashed asset that is not in the build: a short 404, not a rendered page. */
export const missingAsset: RequestHandler = (_req, res) => {
  res.status(404).set("Cache-Control", "no-store").type("text/plain").send("Not found");
};
