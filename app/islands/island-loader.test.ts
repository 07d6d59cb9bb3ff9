import { describe, expect, it } from "vitest";
import { ISLAND_LOADER_ATTRIBUTE, islandFilesInPage, islandLoader } from "./island-loader";

describe("the islands' loader", () => {
  it("imports every file only once the page has loaded", () => {
    const added: string[] = [];
    const imported: string[] = [];
    // `import(…)` cannot be passed in, so the loader runs with it renamed.
    const source = islandLoader(["/assets/a.js", "/assets/b.js"]);
    expect(source).toContain("import(f)");
    const runnable = source.replace("import(f)", "load(f)");
    const listeners: (() => void)[] = [];
    new Function("document", "addEventListener", "load", runnable)(
      { readyState: "interactive" },
      (type: string, listener: () => void) => {
        added.push(type);
        listeners.push(listener);
      },
      (file: string) => imported.push(file),
    );
    expect(added).toEqual(["load"]);
    expect(imported).toEqual([]);
    listeners[0]!();
    expect(imported).toEqual(["/assets/a.js", "/assets/b.js"]);

    const late: string[] = [];
    new Function("document", "addEventListener", "load", runnable)({ readyState: "complete" }, () => {}, (file: string) => late.push(file));
    expect(late).toEqual(["/assets/a.js", "/assets/b.js"]);
  });

  it("lists the files a page loads, for the benchmarks", () => {
    const html = `<head><script nonce="n" ${ISLAND_LOADER_ATTRIBUTE}="">${islandLoader(["/assets/island-menu-X.js", "/assets/mounted-Y.js"])}</script>
      <link rel="modulepreload" fetchpriority="low" href="/assets/chunk-Z.js"/><script type="module" src="/assets/app-W.js"></script></head>`;
    expect(islandFilesInPage(html)).toEqual(["/assets/island-menu-X.js", "/assets/mounted-Y.js", "/assets/app-W.js", "/assets/chunk-Z.js"]);
    expect(islandFilesInPage("<html></html>")).toEqual([]);
  });
});
