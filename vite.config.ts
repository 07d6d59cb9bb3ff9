import { fileURLToPath } from "node:url";
import { islands } from "./app/islands/vite-plugin";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin, type Rollup } from "vite";

/**
 * React Router names every entry of the server build `index.js`; the image
 * worker's and the off-site copy's entries keep their own names (`image-worker.js`,
 * `offsite-copy.js`), since the server forks them by name (decisions 0017, 0060).
 * Listed after reactRouter() so it wins.
 */
const namedServerEntries: Plugin = {
  name: "cornerstone:named-server-entries",
  apply: "build",
  config: (_config, { isSsrBuild }) =>
    isSsrBuild ? { build: { rollupOptions: { output: { entryFileNames: "[name].js" } } } } : undefined,
};

/**
 * Rollup notices a new user cannot act on, each silenced for a reason (every other
 * warning still prints, and `npm test` fails when the build prints one: scripts/check-build-log.mjs).
 */
function quietExpectedWarnings(warning: Rollup.RollupLog, warn: (warning: Rollup.RollupLog) => void): void {
  // The sitemap, robots.txt and the web manifest are resource routes: a server loader and nothing for
  // the browser, so React Router's client build makes an empty chunk for each. Nothing is served from them.
  if (warning.code === "EMPTY_BUNDLE" && ["manifest", "robots", "sitemap"].includes(warning.names?.[0] ?? "")) return;
  // Zod's sources carry explanatory comments beside `@__PURE__` annotations, where Rollup cannot read
  // them; Rollup drops those comments (not the code), so the bundle is what zod meant.
  if (warning.code === "INVALID_ANNOTATION" && /[\\/]node_modules[\\/]zod[\\/]/.test(warning.id ?? "")) return;
  warn(warning);
}

/**
 * Packages bundled into the server build rather than imported from node_modules at start: plain ES
 * modules whose barrels open hundreds of files (date-fns about 800 with its locales, kysely 260, zod
 * 100, lucide-react every icon), when the server uses a few dozen exports. Bundled, Rollup keeps only
 * those, and a server starts with less CPU (docs/PERFORMANCE.md, "Server start").
 */
const BUNDLED_IN_SERVER = ["date-fns", "kysely", "zod", "lucide-react"];

export default defineConfig(({ isSsrBuild }) => ({
  ssr: { noExternal: BUNDLED_IN_SERVER },
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  build: {
    // The server bundle's entry is our Express server, which imports the
    // React Router build through its virtual module (one module graph). The
    // image worker and the off-site copy are entries of their own, forked by the server.
    rollupOptions: isSsrBuild
      ? {
          input: {
            index: "./server/index.ts",
            "image-worker": "./server/image-worker.ts",
            "offsite-copy": "./server/offsite-copy.ts",
          },
          onwarn: quietExpectedWarnings,
        }
      : { onwarn: quietExpectedWarnings },
    target: "es2022",
  },
  plugins: [tailwindcss(), reactRouter(), namedServerEntries, islands({ isSsrBuild: Boolean(isSsrBuild) })],
}));
