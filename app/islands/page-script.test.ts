import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { PAGE_SCRIPT_ATTRIBUTE, islandFilesInPage, pageScriptText, type PageScriptOptions } from "./page-script";

// jsdom ships no types; the little used here.
type JsdomApi = {
  JSDOM: new (html: string, options: object) => { window: Window & typeof globalThis };
  VirtualConsole: new () => { on(event: "jsdomError", listener: (error: unknown) => void): void };
};
const { JSDOM, VirtualConsole } = createRequire(import.meta.url)("jsdom") as JsdomApi;

const OPTIONS: PageScriptOptions = {
  photo: 'img[elementtiming="largest-paint"]',
  wait: "data-photos-wait",
  loadedAt: "data-largest-paint-at",
  links: [
    { rel: "icon", href: "/favicon.ico", sizes: "32x32" },
    { rel: "manifest", href: "/manifest.webmanifest" },
  ],
  islands: ["/assets/chunk-a.js", "/assets/island-menu-b.js"],
  beacon: "/api/page-views/shown?path=",
};
const PHOTOS =
  '<img elementtiming="largest-paint" src="/media/first.avif"><img data-after-largest-paint src="/media/b.avif">';

type Options = {
  elementTiming?: boolean | "none";
  prerendering?: boolean;
  deliveryType?: string;
  photo?: "loaded" | "broken";
};
const errors: unknown[] = [];
afterEach(() => {
  // An error in the script (a name from this module's scope, a compiler's helper) would show here.
  expect(errors).toEqual([]);
  errors.length = 0;
});

/**
 * The script's own text in a fresh window, as a browser runs it: nothing of this module is there.
 * The window's `load` and `pageshow` are the test's to fire (jsdom's would come at once); `photo`
 * is the photo's state when the document has been read (from the cache).
 */
function open(body: string, { elementTiming = true, prerendering = false, deliveryType = "", photo }: Options = {}) {
  const virtualConsole = new VirtualConsole();
  virtualConsole.on("jsdomError", (error) => errors.push(error));
  const timers: { ms: number; fire: () => void }[] = [];
  const observers: (() => void)[] = [];
  const beacons: string[] = [];
  const windowListeners: { type: string; listener: () => void }[] = [];
  const html = `<!doctype html><html><head><script>${pageScriptText(OPTIONS)}</script></head><body>${body}</body></html>`;
  const { window } = new JSDOM(html, {
    url: "https://stone.example/stonework",
    runScripts: "dangerously",
    virtualConsole,
    beforeParse(window: Window & typeof globalThis) {
      class FakeObserver {
        static supportedEntryTypes = elementTiming === true ? ["element", "paint"] : ["paint"];
        constructor(callback: () => void) {
          observers.push(callback);
        }
        observe() {}
      }
      Object.assign(window, {
        setTimeout: (fire: () => void, ms: number) => timers.push({ ms, fire }),
        addEventListener: (type: string, listener: () => void) => windowListeners.push({ type, listener }),
        PerformanceObserver: elementTiming === "none" ? undefined : FakeObserver,
      });
      Object.assign(window.navigator, { sendBeacon: (url: string) => beacons.push(url) > 0 });
      Object.assign(window.performance, { getEntriesByType: () => [{ deliveryType }] });
      Object.defineProperty(window.document, "prerendering", { value: prerendering });
    },
  });
  const img = () => window.document.querySelector<HTMLImageElement>(OPTIONS.photo)!;
  const settle = (naturalWidth: number) => {
    Object.defineProperty(img(), "complete", { value: true });
    Object.defineProperty(img(), "naturalWidth", { value: naturalWidth });
  };
  // Before DOMContentLoaded, which jsdom fires on its next turn.
  if (photo) settle(photo === "loaded" ? 800 : 0);
  const fireWindow = (type: string) => windowListeners.filter((l) => l.type === type).forEach((l) => l.listener());
  return {
    window,
    contentLoaded: () => new Promise((resolve) => window.document.addEventListener("DOMContentLoaded", resolve)),
    photoLoads: () => (settle(800), img().dispatchEvent(new window.Event("load"))),
    photoFails: () => (settle(0), img().dispatchEvent(new window.Event("error"))),
    /** Element Timing reports the photo on screen. */
    paint: () => observers.forEach((callback) => callback()),
    windowLoads: () => fireWindow("load"),
    pageShows: () => fireWindow("pageshow"),
    timers,
    beacons,
    waiting: () => window.document.documentElement.hasAttribute(OPTIONS.wait),
    loadedAt: () => window.document.documentElement.getAttribute(OPTIONS.loadedAt),
    headLinks: () =>
      [...window.document.head.querySelectorAll("link")].map((link) => `${link.rel} ${link.getAttribute("href")}`),
    islands: () =>
      [...window.document.head.querySelectorAll('script[type="module"]')].map((s) => s.getAttribute("src")!),
  };
}

const released = ["icon /favicon.ico", "manifest /manifest.webmanifest"];

describe("the public pages' script", () => {
  it("holds the other photos, the favicon and the manifest until the photo has painted, the islands until the window has loaded too", async () => {
    const page = open(PHOTOS);
    await page.contentLoaded();
    expect(page.waiting()).toBe(true);
    expect(page.headLinks()).toEqual(["icon data:,"]);
    page.photoLoads();
    expect(page.loadedAt()).toMatch(/^\d+$/);
    expect(page.waiting()).toBe(true);
    page.paint();
    expect([page.waiting(), page.headLinks(), page.islands()]).toEqual([false, released, []]);
    page.windowLoads();
    expect(page.islands()).toEqual(OPTIONS.islands);
    // The fallback timer, a second report or a second load add nothing.
    expect(page.timers.map((timer) => timer.ms)).toEqual([3000]);
    page.timers[0]!.fire();
    page.paint();
    page.photoLoads();
    expect([page.headLinks(), page.islands()]).toEqual([released, OPTIONS.islands]);
  });

  it("loads the islands at the paint when the window loaded first", async () => {
    const page = open(PHOTOS);
    await page.contentLoaded();
    page.photoLoads();
    page.windowLoads();
    expect([page.waiting(), page.islands()]).toEqual([true, []]);
    page.paint();
    expect([page.waiting(), page.islands()]).toEqual([false, OPTIONS.islands]);
  });

  it("without Element Timing, or without PerformanceObserver, the photo's load is enough", async () => {
    for (const elementTiming of [false, "none"] as const) {
      const page = open(PHOTOS, { elementTiming });
      await page.contentLoaded();
      page.photoLoads();
      expect([page.waiting(), page.headLinks()]).toEqual([false, released]);
      expect(page.loadedAt()).toMatch(/^\d+$/);
    }
  });

  it("a photo that fails releases the others at once", async () => {
    const page = open(PHOTOS);
    await page.contentLoaded();
    page.photoFails();
    expect([page.waiting(), page.loadedAt(), page.headLinks()]).toEqual([false, null, released]);
  });

  it("a photo that never paints holds the others 3 s after its load, no longer", async () => {
    const page = open(PHOTOS);
    await page.contentLoaded();
    page.photoLoads();
    expect(page.timers.map((timer) => timer.ms)).toEqual([3000]);
    expect(page.waiting()).toBe(true);
    page.timers[0]!.fire();
    page.windowLoads();
    expect([page.waiting(), page.islands()]).toEqual([false, OPTIONS.islands]);
  });

  it("nothing waits on a page without the photo, nor for a photo still loading when the window has loaded", async () => {
    const none = open("<p>No photos.</p>");
    await none.contentLoaded();
    expect(none.waiting()).toBe(false);
    none.windowLoads();
    expect(none.islands()).toEqual(OPTIONS.islands);

    const slow = open(PHOTOS);
    await slow.contentLoaded();
    expect(slow.waiting()).toBe(true);
    slow.windowLoads();
    expect([slow.waiting(), slow.islands()]).toEqual([false, OPTIONS.islands]);
  });

  it("a photo already there when the document is read: waits for its paint, or none when it is broken", async () => {
    const cached = open(PHOTOS, { photo: "loaded" });
    await cached.contentLoaded();
    expect([cached.waiting(), cached.loadedAt()]).toEqual([true, expect.stringMatching(/^\d+$/)]);
    cached.paint();
    expect(cached.waiting()).toBe(false);

    const broken = open(PHOTOS, { photo: "broken" });
    await broken.contentLoaded();
    expect(broken.waiting()).toBe(false);
  });

  it("counts a prerendered page once it is shown, and a page shown from a prerender's response", async () => {
    const prerendered = open(PHOTOS, { prerendering: true });
    prerendered.pageShows();
    expect(prerendered.beacons).toEqual([]);
    prerendered.window.document.dispatchEvent(new prerendered.window.Event("prerenderingchange"));
    expect(prerendered.beacons).toEqual(["/api/page-views/shown?path=%2Fstonework"]);

    const prefetched = open(PHOTOS, { deliveryType: "navigational-prefetch" });
    prefetched.pageShows();
    expect(prefetched.beacons).toEqual(["/api/page-views/shown?path=%2Fstonework"]);

    // An ordinary visit was counted by the server.
    const visited = open(PHOTOS);
    visited.pageShows();
    expect(visited.beacons).toEqual([]);
  });
});

describe("islandFilesInPage", () => {
  it("lists the page script's islands", () => {
    const html = `<head><script nonce="n" ${PAGE_SCRIPT_ATTRIBUTE}="">${pageScriptText(OPTIONS)}</script></head>`;
    expect(islandFilesInPage(html)).toEqual(OPTIONS.islands);
    expect(islandFilesInPage("<html></html>")).toEqual([]);
  });
});
