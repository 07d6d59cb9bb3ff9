import { describe, expect, it } from "vitest";
import { ISLAND_LOADER_ATTRIBUTE, islandFilesInPage, islandLoader } from "./island-loader";

/** Runs the loader's text with the browser's globals it uses replaced; `import(…)` becomes `load(…)`. */
function runLoader(readyState: string, images: { fetchPriority: string; decode: () => Promise<void> }[]) {
  const source = islandLoader(["/assets/a.js", "/assets/b.js"]);
  expect(source).toContain("import(f)");
  const imported: string[] = [];
  const listeners: (() => void)[] = [];
  const frames: (() => void)[] = [];
  const timers: (() => void)[] = [];
  new Function("document", "addEventListener", "requestAnimationFrame", "setTimeout", "load", source.replace("import(f)", "load(f)"))(
    { readyState, images },
    (type: string, listener: () => void) => type === "load" && listeners.push(listener),
    (frame: () => void) => frames.push(frame),
    (timer: () => void) => timers.push(timer),
    (file: string) => imported.push(file),
  );
  return { imported, listeners, frames, timers };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the islands' loader", () => {
  it("imports every file once the page has loaded, its priority photo is decoded and a frame has been drawn", async () => {
    let decoded!: () => void;
    const photo = { fetchPriority: "high", decode: () => new Promise<void>((resolve) => (decoded = resolve)) };
    const other = { fetchPriority: "low", decode: () => Promise.reject(new Error("not asked")) };
    const { imported, listeners, frames, timers } = runLoader("interactive", [photo, other]);
    expect(listeners).toHaveLength(1);
    listeners[0]!();
    await settle();
    expect(frames).toHaveLength(0);
    decoded();
    await settle();
    expect(frames).toHaveLength(1);
    frames[0]!();
    expect(imported).toEqual([]);
    timers[0]!();
    expect(imported).toEqual(["/assets/a.js", "/assets/b.js"]);
  });

  it("does not wait for `load` that has passed, nor for a photo that failed", async () => {
    const broken = { fetchPriority: "high", decode: () => Promise.reject(new Error("broken")) };
    const { imported, listeners, frames, timers } = runLoader("complete", [broken]);
    expect(listeners).toHaveLength(0);
    await settle();
    frames[0]!();
    timers[0]!();
    expect(imported).toEqual(["/assets/a.js", "/assets/b.js"]);
  });

  it("lists the files a page loads, for the benchmarks", () => {
    const html = `<head><script nonce="n" ${ISLAND_LOADER_ATTRIBUTE}="">${islandLoader(["/assets/island-menu-X.js", "/assets/mounted-Y.js"])}</script>
      <link rel="modulepreload" fetchpriority="low" href="/assets/chunk-Z.js"/><script type="module" src="/assets/app-W.js"></script></head>`;
    expect(islandFilesInPage(html)).toEqual(["/assets/island-menu-X.js", "/assets/mounted-Y.js", "/assets/app-W.js", "/assets/chunk-Z.js"]);
    expect(islandFilesInPage("<html></html>")).toEqual([]);
  });
});
