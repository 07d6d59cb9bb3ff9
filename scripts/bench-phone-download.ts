/**
 * The "weight" part of `npm run bench`: what a phone downloads for /stonework. Reads the page's
 * HTML as a browser would (stylesheets, scripts, and each <picture>'s AVIF at the phone's slot
 * width × DPR) and sums the bytes on the wire, against the uploaded originals.
 */
import { islandFilesInPage } from "../app/islands/page-script";
import { kb, round, table } from "./lib/bench-report";
import { rawGet } from "./lib/http-raw";
import type { ProductionServer } from "./lib/production-server";

// A 390 px wide phone at 3× (an iPhone 14/15's screen).
const PHONE = { viewportWidth: 390, dpr: 3 };
const PHONE_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Tags named `name` with their attributes (lower-case names, entity-decoded values). */
function tags(html: string, name: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const match of html.matchAll(new RegExp(`<${name}\\b([^>]*)>`, "gi"))) {
    const attributes: Record<string, string> = {};
    for (const attr of (match[1] ?? "").matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
      attributes[attr[1]!.toLowerCase()] = decodeEntities(attr[2] ?? attr[3] ?? attr[4] ?? "");
    }
    found.push(attributes);
  }
  return found;
}

/** The slot width in CSS px that `sizes` gives on the phone; only (min|max)-width conditions are understood. */
function slotWidth(sizes: string, viewportWidth: number): number {
  const length = (value: string) => {
    // calc(100vw - 32px) and calc((100vw - 96px) / 3), as the gallery's sizes say.
    const calc = /^calc\(\(?\s*100vw\s*-\s*([\d.]+)px\s*\)?(?:\s*\/\s*([\d.]+))?\s*\)$/.exec(value.trim());
    if (calc) return (viewportWidth - Number(calc[1])) / Number(calc[2] ?? 1);
    const match = /^([\d.]+)(px|vw)$/.exec(value.trim());
    if (!match) return viewportWidth; // anything else: assume full width
    return match[2] === "vw" ? (Number(match[1]) / 100) * viewportWidth : Number(match[1]);
  };
  for (const entry of sizes.split(",").map((part) => part.trim())) {
    const conditional = /^(\([^)]*\)(?:\s+and\s+\([^)]*\))*)\s+(.+)$/.exec(entry);
    if (!conditional) return length(entry);
    const conditions = conditional[1]!.split(/\s+and\s+/i);
    const matches = conditions.every((condition) => {
      const parsed = /^\(\s*(min|max)-width\s*:\s*([\d.]+)px\s*\)$/.exec(condition.trim());
      if (!parsed) return false;
      return parsed[1] === "min" ? viewportWidth >= Number(parsed[2]) : viewportWidth <= Number(parsed[2]);
    });
    if (matches) return length(conditional[2]!);
  }
  return viewportWidth;
}

/** The smallest candidate at least `needed` px wide, else the largest (like a browser with an empty cache). */
function pickCandidate(srcset: string, needed: number): { url: string; width: number } {
  const candidates = srcset
    .split(",")
    .map((entry) => entry.trim().split(/\s+/))
    .map(([url, descriptor]) => ({ url: url!, width: Number.parseInt(descriptor ?? "0", 10) }))
    .sort((a, b) => a.width - b.width);
  return candidates.find((candidate) => candidate.width >= needed) ?? candidates.at(-1)!;
}

export async function weightPart(server: ProductionServer) {
  const pagePath = "/stonework";
  console.log(
    `\n== Page weight: ${pagePath} on a ${PHONE.viewportWidth} px wide, ${PHONE.dpr}× DPR phone (br/gzip accepted)`,
  );
  const headers = { "User-Agent": PHONE_UA, "Accept-Encoding": "br, gzip" };
  const page = await rawGet(server.url + pagePath, { ...headers, Accept: "text/html" });
  if (page.status !== 200) throw new Error(`${pagePath} answered ${page.status}`);
  const html = page.body.toString("utf8");

  type Item = {
    kind: string;
    url: string;
    wireBytes: number;
    headerBytes: number;
    encoding: string;
    lazy?: boolean;
    note?: string;
  };
  const items: Item[] = [
    {
      kind: "html",
      url: pagePath,
      wireBytes: page.wireBytes,
      headerBytes: page.headerBytes,
      encoding: String(page.headers["content-encoding"] ?? "identity"),
    },
  ];
  const seen = new Set<string>([pagePath]);
  const fetchItem = async (kind: string, url: string, extra: Partial<Item> = {}, accept = "*/*") => {
    if (seen.has(url)) return;
    seen.add(url);
    const response = await rawGet(new URL(url, server.url).href, { ...headers, Accept: accept });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    items.push({
      kind,
      url,
      wireBytes: response.wireBytes,
      headerBytes: response.headerBytes,
      encoding: String(response.headers["content-encoding"] ?? "identity"),
      ...extra,
    });
  };

  // CSS and JS: stylesheets, the islands (loader list, module preloads, script src) and the inline module script's imports.
  for (const link of tags(html, "link")) {
    const rel = (link.rel ?? "").toLowerCase();
    if (rel === "stylesheet" && link.href) await fetchItem("css", link.href, {}, "text/css");
  }
  for (const file of islandFilesInPage(html)) await fetchItem("js", file);
  for (const match of html.matchAll(/import\s*(?:[^"';]*?from\s*)?["'](\/[^"']+\.js)["']/g))
    await fetchItem("js", match[1]!);

  // Images: each <picture>'s AVIF source at the phone's slot width × DPR.
  let pictures = 0;
  for (const match of html.matchAll(/<picture\b[^>]*>([\s\S]*?)<\/picture>/gi)) {
    const inner = match[1] ?? "";
    const avif = tags(inner, "source").find((source) => source.type === "image/avif");
    const img = tags(inner, "img")[0];
    if (!avif?.srcset) continue;
    pictures += 1;
    const slot = slotWidth(avif.sizes ?? "100vw", PHONE.viewportWidth);
    const choice = pickCandidate(avif.srcset, slot * PHONE.dpr);
    await fetchItem(
      "image",
      choice.url,
      { lazy: img?.loading === "lazy", note: `slot ${Math.round(slot)} px → ${choice.width}w` },
      "image/avif,image/webp,*/*",
    );
  }

  const sum = (list: Item[]) => list.reduce((total, item) => total + item.wireBytes, 0);
  const byKind = (kind: string) => items.filter((item) => item.kind === kind);
  const images = byKind("image");
  const eager = images.filter((item) => !item.lazy);
  const total = sum(items);
  const headerBytes = items.reduce((t, item) => t + item.headerBytes, 0);
  const originals = [server.originals.traditional, server.originals.veneer];
  const originalBytes = originals.reduce((t, o) => t + o.bytes, 0);
  const originalCount = originals.reduce((t, o) => t + o.count, 0);

  console.log(
    table(
      ["item", "count", "bytes on the wire"],
      [
        ["HTML", "1", kb(sum(byKind("html")))],
        ["CSS", String(byKind("css").length), kb(sum(byKind("css")))],
        ["JS", String(byKind("js").length), kb(sum(byKind("js")))],
        [
          `images (AVIF, all ${pictures} pictures; ${images.length - eager.length} lazy)`,
          String(images.length),
          kb(sum(images)),
        ],
        ["total (bodies; all images)", String(items.length), kb(total)],
        ["  + response headers", "", kb(headerBytes)],
        [
          "total without lazy images",
          String(items.length - (images.length - eager.length)),
          kb(total - sum(images) + sum(eager)),
        ],
        [`uploaded originals of these galleries (JPEG)`, String(originalCount), kb(originalBytes)],
      ],
    ),
  );
  const picks = [...new Set(images.map((item) => item.note))].join("; ");
  console.log(`Image choice: ${picks}. Lazy images count too: they load as the visitor scrolls.`);
  console.log(`Page total is ${((total / originalBytes) * 100).toFixed(1)}% of the originals' bytes.`);
  // The first screen: the page, its script and the photos fetched at once (not lazy).
  const firstScreen = total - sum(images) + sum(eager);
  console.log(
    `First screen on a ${PHONE.viewportWidth} px phone: ${kb(firstScreen)} (${eager.length} photo${eager.length === 1 ? "" : "s"}: ${kb(sum(eager))}) against ${kb(originalBytes)} of originals (${((firstScreen / originalBytes) * 100).toFixed(2)}%).`,
  );
  return {
    page: pagePath,
    phone: PHONE,
    totals: {
      htmlBytes: sum(byKind("html")),
      cssBytes: sum(byKind("css")),
      jsBytes: sum(byKind("js")),
      imageBytes: sum(images),
      imageBytesEagerOnly: sum(eager),
      totalBytes: total,
      totalBytesWithoutLazyImages: total - sum(images) + sum(eager),
      firstScreenBytes: total - sum(images) + sum(eager),
      headerBytes,
      originalsBytes: originalBytes,
      originalsCount: originalCount,
      pageShareOfOriginals: round(total / originalBytes, 4),
    },
    items,
  };
}
