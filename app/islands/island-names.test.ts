import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ISLAND_NAMES } from "./island-names.generated";
import { ISLAND_NAMES_MODULE, discoverIslands, islandNamesSource, writeIslandNames } from "./vite-plugin";

const roots: string[] = [];
function rootWith(files: string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), "islands-"));
  roots.push(root);
  mkdirSync(path.join(root, "app/islands"), { recursive: true });
  for (const file of files) writeFileSync(path.join(root, "app/islands", file), "");
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("islands by file convention", () => {
  it("makes each app/islands/<name>.island.ts an entry named by its file, and nothing else", () => {
    const root = rootWith([
      "zebra.island.ts",
      "alpha.island.ts",
      "helper.ts",
      "alpha.test.ts",
      "beta.island.tsx",
      "notes.island.ts.md",
    ]);
    expect(discoverIslands(root)).toEqual({
      alpha: "app/islands/alpha.island.ts",
      zebra: "app/islands/zebra.island.ts",
    });
  });

  it("refuses a name that cannot go into <html data-islands> or a file name", () => {
    for (const file of ["Menu.island.ts", "two words.island.ts", "9lives.island.ts"]) {
      expect(() => discoverIslands(rootWith([file])), file).toThrow(`app/islands/${file}: an island's name`);
    }
  });

  it("writes the names module for tsc, and leaves it untouched when the islands did not change", () => {
    const root = rootWith(["menu.island.ts", "slideshow.island.ts"]);
    writeIslandNames(root, discoverIslands(root));
    const file = path.join(root, ISLAND_NAMES_MODULE);
    expect(readFileSync(file, "utf8")).toContain('export const ISLAND_NAMES = ["menu", "slideshow"] as const;\n');

    const past = new Date("2026-01-01T00:00:00Z");
    utimesSync(file, past, past);
    writeIslandNames(root, discoverIslands(root));
    expect(statSync(file).mtime.getTime()).toBe(past.getTime());

    writeFileSync(path.join(root, "app/islands/gallery.island.ts"), "");
    writeIslandNames(root, discoverIslands(root));
    expect(readFileSync(file, "utf8")).toContain(
      'export const ISLAND_NAMES = ["gallery", "menu", "slideshow"] as const;\n',
    );
  });

  it("the committed names module lists this repository's island files (run `npm run build` when it does not)", () => {
    const here = path.dirname(new URL(import.meta.url).pathname);
    const files = readdirSync(here).filter((file) => file.endsWith(".island.ts"));
    expect(files.length).toBeGreaterThan(0);
    expect([...ISLAND_NAMES].sort()).toEqual(files.map((file) => file.replace(/\.island\.ts$/, "")).sort());
    expect(readFileSync(path.resolve(here, "../..", ISLAND_NAMES_MODULE), "utf8")).toBe(
      islandNamesSource(ISLAND_NAMES),
    );
  });
});
