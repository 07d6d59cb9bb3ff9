import { describe, expect, it } from "vitest";
import { ISLAND_LOADER_ATTRIBUTE, islandFilesInPage, islandLoader } from "./island-loader";

type Photo = { decode: () => Promise<void> };

/** Runs the loader's text with the browser's globals it uses replaced; `import(…)` becomes `load(…)`. */
function runLoader(readyState: string, photos: Photo[], elementTiming = true) {
  const source = islandLoader(["/assets/a.js", "/assets/b.js"]);
  expect(source).toContain("import(f)");
  const imported: string[] = [];
  const listeners: (() => void)[] = [];
  const observers: { callback: () => void; options: unknown }[] = [];
  const timers: { callback: () => void; ms: number }[] = [];
  const selectors: string[] = [];
  class FakeObserver {
    static supportedEntryTypes = elementTiming ? ["element", "paint"] : ["paint"];
    constructor(private readonly callback: () => void) {}
    observe(options: unknown) {
      observers.push({ callback: this.callback, options });
    }
  }
  const document = {
    readyState,
    querySelectorAll: (selector: string) => (selectors.push(selector), photos),
  };
  new Function(
    "document",
    "addEventListener",
    "setTimeout",
    "PerformanceObserver",
    "load",
    source.replace("import(f)", "load(f)"),
  )(
    document,
    (type: string, listener: () => void) => type === "load" && listeners.push(listener),
    (callback: () => void, ms: number) => timers.push({ callback, ms }),
    FakeObserver,
    (file: string) => imported.push(file),
  );
  return { imported, listeners, observers, timers, selectors };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const decodes: Photo = { decode: () => Promise.resolve() };

describe("the islands' loader", () => {
  it("imports every file once, after load, when the largest-paint photo has painted", async () => {
    const { imported, listeners, observers, selectors, timers } = runLoader("interactive", [decodes]);
    expect(listeners).toHaveLength(1);
    expect(observers).toHaveLength(0);
    listeners[0]!();
    expect(selectors).toEqual(['img[elementtiming="largest-paint"]']);
    expect(observers).toEqual([{ callback: expect.any(Function), options: { type: "element", buffered: true } }]);
    await settle();
    expect(imported).toEqual([]);
    observers[0]!.callback();
    expect(imported).toEqual(["/assets/a.js", "/assets/b.js"]);
    // The fallback timer, or a second entry, imports nothing more.
    expect(timers.map((t) => t.ms)).toEqual([3000]);
    timers[0]!.callback();
    observers[0]!.callback();
    expect(imported).toEqual(["/assets/a.js", "/assets/b.js"]);
  });

  it("does not wait for a photo that fails, nor without one, nor without Element Timing; at most 3 s", async () => {
    const broken = runLoader("complete", [{ decode: () => Promise.reject(new Error("broken")) }]);
    expect(broken.listeners).toHaveLength(0);
    await settle();
    expect(broken.imported).toEqual(["/assets/a.js", "/assets/b.js"]);

    expect(runLoader("complete", []).imported).toEqual(["/assets/a.js", "/assets/b.js"]);
    expect(runLoader("complete", [decodes], false).imported).toEqual(["/assets/a.js", "/assets/b.js"]);

    const offScreen = runLoader("complete", [decodes]);
    await settle();
    expect(offScreen.imported).toEqual([]);
    offScreen.timers[0]!.callback();
    expect(offScreen.imported).toEqual(["/assets/a.js", "/assets/b.js"]);
  });

  it("lists the files a page loads, for the benchmarks", () => {
    const html = `<head><script nonce="n" ${ISLAND_LOADER_ATTRIBUTE}="">${islandLoader(["/assets/island-menu-X.js", "/assets/mounted-Y.js"])}</script>
      <link rel="modulepreload" fetchpriority="low" href="/assets/chunk-Z.js"/><script type="module" src="/assets/app-W.js"></script></head>`;
    expect(islandFilesInPage(html)).toEqual([
      "/assets/island-menu-X.js",
      "/assets/mounted-Y.js",
      "/assets/app-W.js",
      "/assets/chunk-Z.js",
    ]);
    expect(islandFilesInPage("<html></html>")).toEqual([]);
  });
});
