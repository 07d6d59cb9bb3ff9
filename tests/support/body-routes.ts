import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Every route that takes a request body, read from the routers themselves:
 * the Express app's router (and every router mounted in it, however deep),
 * and the React Router routes whose module has an action, from the
 * production build's route manifest (what the running server routes by).
 */

export type BodyRoute = {
  /** POST, PUT, PATCH, DELETE; ALL for `router.all`; USE for a handler mounted on a path (any method). */
  method: string;
  /** Express's pattern ("/api/admin/passkeys/:id") or the page's path ("/contact"). */
  path: string;
  source: "express" | "react-router";
};

type Layer = {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | RegExp | (string | RegExp)[];
  name?: string;
};

const BODYLESS = new Set(["get", "head", "options"]);

function join(prefix: string, part: string): string {
  const joined = `${prefix}/${part}`.replace(/\/{2,}/g, "/");
  return joined.length > 1 ? joined.replace(/\/$/, "") : joined;
}

function patternOf(raw: Layer["rawPath"]): string {
  if (raw === undefined) return "/";
  if (Array.isArray(raw)) return raw.map((part) => patternOf(part)).join("|");
  return raw instanceof RegExp ? `regexp:${raw.source}` : raw;
}

function walk(stack: Layer[], prefix: string, found: BodyRoute[]) {
  for (const layer of stack) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const method of Object.keys(layer.route.methods)) {
        if (BODYLESS.has(method)) continue;
        for (const routePath of paths)
          found.push({
            method: method === "_all" ? "ALL" : method.toUpperCase(),
            path: join(prefix, routePath),
            source: "express",
          });
      }
    } else if (layer.handle?.stack) {
      walk(layer.handle.stack, join(prefix, patternOf(layer.rawPath)), found);
    } else if (patternOf(layer.rawPath) !== "/") {
      // A handler mounted on a path answers any method there: listed, to be covered or declared bodiless.
      found.push({ method: "USE", path: join(prefix, patternOf(layer.rawPath)), source: "express" });
    }
  }
}

/** The Express app's routes that take a body (`app.router` is Express 5's root router). */
export function expressBodyRoutes(app: { router: { stack: Layer[] } }): BodyRoute[] {
  const found: BodyRoute[] = [];
  walk(app.router.stack, "", found);
  return found;
}

type ManifestRoute = { id: string; parentId?: string; path?: string; index?: boolean; hasAction: boolean };

/** The route manifest React Router built into build/client (window.__reactRouterManifest). */
export function readBuiltRouteManifest(clientDir: string): Record<string, ManifestRoute> {
  const assets = path.join(clientDir, "assets");
  const prefix = "window.__reactRouterManifest=";
  for (const name of readdirSync(assets)) {
    if (!/^manifest-[\w-]+\.js$/.test(name)) continue;
    const text = readFileSync(path.join(assets, name), "utf8").trim();
    if (!text.startsWith(prefix)) continue;
    return (JSON.parse(text.slice(prefix.length).replace(/;$/, "")) as { routes: Record<string, ManifestRoute> })
      .routes;
  }
  throw new Error(`No React Router manifest in ${assets}: run \`npm run build\` first.`);
}

/** Pages whose route module has an action: a POST to their path runs it. */
export function pageActionRoutes(manifest: Record<string, ManifestRoute>): BodyRoute[] {
  const fullPath = (route: ManifestRoute): string => {
    const parent = route.parentId ? manifest[route.parentId] : undefined;
    const base = parent ? fullPath(parent) : "/";
    return route.index ? base : join(base, route.path ?? "");
  };
  return Object.values(manifest)
    .filter((route) => route.hasAction)
    .map((route) => ({ method: "POST", path: fullPath(route), source: "react-router" as const }));
}

export function routeKey(route: Pick<BodyRoute, "method" | "path">): string {
  return `${route.method} ${route.path}`;
}
