import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";

/**
 * The public pages' islands (docs/decisions/0055): each a browser entry of its own in the client
 * build, beside React Router's. Their built files are written to ISLANDS_MANIFEST, which the server
 * build then reads through `virtual:cornerstone/islands`, so a page names its islands' hashed files.
 */
export const ISLAND_ENTRIES = {
  menu: "app/islands/menu.ts",
  hero: "app/islands/hero.ts",
  contact: "app/islands/contact.ts",
} as const;

const VIRTUAL_ID = "virtual:cornerstone/islands";
const RESOLVED_ID = `\0${VIRTUAL_ID}`;
/**
 * Development only: an island's entry behind React Router's HMR preamble, which every .tsx module
 * Vite transforms checks for ("can't detect preamble"); island pages do not render `<Scripts />`,
 * which would otherwise install it. ES modules evaluate their imports in order: preamble first.
 */
const DEV_ENTRY_PREFIX = "virtual:cornerstone/island-dev/";
const REACT_ROUTER_HMR_PREAMBLE = "virtual:react-router/inject-hmr-runtime";
/** Outside build/client, so it is never served. */
const ISLANDS_MANIFEST = "build/islands.json";

export type IslandAsset = { file: string; imports: string[] };

export function islands({ isSsrBuild }: { isSsrBuild: boolean }): Plugin {
  let command: "build" | "serve" = "build";
  let root = process.cwd();
  return {
    name: "cornerstone:islands",
    configResolved(config) {
      command = config.command;
      root = config.root;
    },
    buildStart() {
      if (command !== "build" || isSsrBuild) return;
      for (const [name, file] of Object.entries(ISLAND_ENTRIES)) {
        this.emitFile({ type: "chunk", id: path.resolve(root, file), name: `island-${name}` });
      }
    },
    generateBundle(_options, bundle) {
      if (command !== "build" || isSsrBuild) return;
      const chunks = new Map(Object.values(bundle).flatMap((item) => (item.type === "chunk" ? [[item.fileName, item]] : [])));
      // Every chunk an entry needs before it runs, requested with it (no request waterfall).
      const importsOf = (fileName: string, seen = new Set<string>()): Set<string> => {
        for (const imported of chunks.get(fileName)?.imports ?? []) {
          if (seen.has(imported)) continue;
          seen.add(imported);
          importsOf(imported, seen);
        }
        return seen;
      };
      const assets: Record<string, IslandAsset> = {};
      for (const chunk of chunks.values()) {
        const name = chunk.isEntry && chunk.name.startsWith("island-") ? chunk.name.slice("island-".length) : null;
        if (!name) continue;
        assets[name] = { file: `/${chunk.fileName}`, imports: [...importsOf(chunk.fileName)].map((file) => `/${file}`) };
      }
      writeFileSync(path.resolve(root, ISLANDS_MANIFEST), JSON.stringify(assets, null, 2));
    },
    resolveId: (id) => (id === VIRTUAL_ID ? RESOLVED_ID : id.startsWith(DEV_ENTRY_PREFIX) ? `\0${id}` : undefined),
    load(id) {
      if (id.startsWith(`\0${DEV_ENTRY_PREFIX}`)) {
        const file = ISLAND_ENTRIES[id.slice(DEV_ENTRY_PREFIX.length + 1) as keyof typeof ISLAND_ENTRIES];
        return file ? `import "${REACT_ROUTER_HMR_PREAMBLE}";\nimport "/${file}";\n` : undefined;
      }
      if (id !== RESOLVED_ID) return;
      // Development: Vite serves the sources themselves, each behind the HMR preamble.
      if (command === "serve") {
        const dev = Object.fromEntries(
          Object.keys(ISLAND_ENTRIES).map((name) => [name, { file: `/@id/__x00__${DEV_ENTRY_PREFIX}${name}`, imports: [] }]),
        );
        return `export default ${JSON.stringify(dev)};`;
      }
      // The browser build never renders island scripts (only server-rendered public pages do).
      if (!isSsrBuild) return "export default {};";
      return `export default ${readFileSync(path.resolve(root, ISLANDS_MANIFEST), "utf8")};`;
    },
  };
}
