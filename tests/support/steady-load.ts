/**
 * A steady load on the site while it updates (tests/e2e/update-operations.spec.ts, `npm run bench --
 * --only=update`): visitors viewing pages and loading every script each page lists (and what those
 * import), enquiries sent each from an address of its own (the limits count per visitor), and photo
 * uploads sent slowly. Every request's outcome and time are kept.
 */
import { randomUUID } from "node:crypto";
import https from "node:https";
import zlib from "node:zlib";
import { islandFilesInPage } from "~/islands/page-script";

export type LoadKind = "page" | "script" | "enquiry" | "upload";
export type LoadRecord = {
  kind: LoadKind;
  path: string;
  status: number;
  error?: string;
  startedAt: number;
  endedAt: number;
};

export type LoadReport = {
  requests: number;
  perKind: Record<LoadKind, number>;
  /** Anything but the expected 2xx answer, or no answer at all. */
  failed: LoadRecord[];
  assetNotFound: LoadRecord[];
  longestWaitMs: number;
  /** The message of each enquiry the site accepted (201). */
  enquiriesAccepted: string[];
};

type Answer = { status: number; body: string; error?: string };

export type SiteClient = {
  get(path: string): Promise<Answer>;
  post(
    path: string,
    body: Buffer | string,
    headers: Record<string, string>,
    options?: { from?: string; sendOverMs?: number },
  ): Promise<Answer>;
};

/** HTTPS to Caddy, trusting its root certificate only; `from` sends from that loopback address (another visitor). */
export function siteClient(url: string, ca: string): SiteClient {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca });
  const base = new URL(url);
  const send = (
    method: string,
    path: string,
    body: Buffer | null,
    headers: Record<string, string>,
    options: { from?: string; sendOverMs?: number } = {},
  ) =>
    new Promise<Answer>((resolve) => {
      const request = https.request(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: body ? { ...headers, "content-length": String(body.length) } : headers,
          ...(options.from ? { agent: false, ca, localAddress: options.from } : { agent }),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            const raw = Buffer.concat(chunks);
            const encoding = response.headers["content-encoding"];
            const decoded =
              encoding === "br" ? zlib.brotliDecompressSync(raw) : encoding === "gzip" ? zlib.gunzipSync(raw) : raw;
            resolve({ status: response.statusCode ?? 0, body: decoded.toString() });
          });
          response.on("error", (error) => resolve({ status: 0, body: "", error: error.message }));
        },
      );
      request.on("error", (error) => resolve({ status: 0, body: "", error: error.message }));
      if (!body) return void request.end();
      if (!options.sendOverMs) return void request.end(body);
      // A slow connection: the body in 20 parts, spread over sendOverMs.
      const parts = 20;
      const size = Math.ceil(body.length / parts);
      let part = 0;
      const next = () => {
        if (part === parts) return void request.end();
        request.write(body.subarray(part * size, (part + 1) * size));
        part += 1;
        setTimeout(next, options.sendOverMs! / parts);
      };
      next();
    });
  return {
    get: (path) => send("GET", path, null, { "accept-encoding": "br" }),
    post: (path, body, headers, options) => send("POST", path, Buffer.from(body), headers, options),
  };
}

/** A multipart body with one photo in the field the enquiry form uses. */
export function photoUpload(photo: Buffer): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----cornerstone-${randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="wall.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    photo,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

/** The scripts a script imports, as paths (Vite's chunks import each other by relative name). */
function importsOf(scriptPath: string, source: string): string[] {
  const found = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+\.js)["']/g)].map(
    (match) => match[1]!,
  );
  return found.map((relative) => new URL(relative, `https://site${scriptPath}`).pathname);
}

let visitorCounter = 0;
/** A loopback address no other request of this run used: each enquiry or upload is another visitor. */
export function nextVisitorAddress(): string {
  visitorCounter += 1;
  return `127.${100 + Math.floor(visitorCounter / 62500)}.${Math.floor(visitorCounter / 250) % 250}.${(visitorCounter % 250) + 1}`;
}

/** Loads the scripts a page lists, and what they import, as a browser would; a record for each. */
export async function loadPageScripts(client: SiteClient, html: string): Promise<LoadRecord[]> {
  const records: LoadRecord[] = [];
  const seen = new Set<string>();
  let queue = islandFilesInPage(html);
  while (queue.length) {
    const batch = queue.filter((path) => !seen.has(path));
    batch.forEach((path) => seen.add(path));
    const answers = await Promise.all(
      batch.map(async (path) => {
        const startedAt = Date.now();
        const answer = await client.get(path);
        records.push({
          kind: "script",
          path,
          status: answer.status,
          error: answer.error ?? (answer.status === 200 ? undefined : answer.body.slice(0, 200)),
          startedAt,
          endedAt: Date.now(),
        });
        return { path, answer };
      }),
    );
    queue = answers.flatMap(({ path, answer }) => (answer.status === 200 ? importsOf(path, answer.body) : []));
  }
  return records;
}

export type SteadyLoad = {
  records: LoadRecord[];
  stop(): Promise<LoadReport>;
};

export function startSteadyLoad(options: {
  client: SiteClient;
  /** Concurrent visitors viewing pages, one after another. */
  viewers?: number;
  viewEveryMs?: number;
  enquiryEveryMs?: number;
  /** A photo to upload again and again, each upload sent over `uploadOverMs`. */
  photo?: Buffer;
  uploadOverMs?: number;
  tag?: string;
}): SteadyLoad {
  const { client, viewers = 3, viewEveryMs = 300, enquiryEveryMs = 400, tag = "load" } = options;
  const records: LoadRecord[] = [];
  const accepted: string[] = [];
  let running = true;
  const record = async (kind: LoadKind, path: string, expected: number, call: () => Promise<Answer>) => {
    const startedAt = Date.now();
    const answer = await call();
    records.push({
      kind,
      path,
      status: answer.status,
      error: answer.error ?? (answer.status === expected ? undefined : answer.body.slice(0, 200)),
      startedAt,
      endedAt: Date.now(),
    });
    return answer;
  };
  const viewer = async (index: number) => {
    const pages = ["/", "/contact", "/stonework"];
    for (let view = index; running; view++) {
      const path = pages[view % pages.length]!;
      const page = await record("page", path, 200, () => client.get(path));
      if (page.status === 200) records.push(...(await loadPageScripts(client, page.body)));
      // A visitor reads a little before the next page.
      await new Promise((resolve) => setTimeout(resolve, viewEveryMs));
    }
  };
  const sender = async () => {
    for (let n = 1; running; n++) {
      const message = `Update rehearsal enquiry ${n} (${tag}), about a retaining wall.`;
      const answer = await record("enquiry", "/api/contact", 201, () =>
        client.post(
          "/api/contact",
          JSON.stringify({ name: "Rehearsal Visitor", email: "visitor@example.com", message }),
          { "content-type": "application/json" },
          { from: nextVisitorAddress() },
        ),
      );
      if (answer.status === 201) accepted.push(message);
      await new Promise((resolve) => setTimeout(resolve, enquiryEveryMs));
    }
  };
  const uploader = async () => {
    while (running && options.photo) {
      const { body, headers } = photoUpload(options.photo);
      await record("upload", "/api/enquiry-photos", 201, () =>
        client.post("/api/enquiry-photos", body, headers, {
          from: nextVisitorAddress(),
          sendOverMs: options.uploadOverMs ?? 2000,
        }),
      );
    }
  };
  const workers = [...Array.from({ length: viewers }, (_, index) => viewer(index)), sender(), uploader()];
  return {
    records,
    async stop() {
      running = false;
      await Promise.all(workers);
      return summarise(records, accepted);
    },
  };
}

export function summarise(records: LoadRecord[], enquiriesAccepted: string[] = []): LoadReport {
  const expected: Record<LoadKind, number> = { page: 200, script: 200, enquiry: 201, upload: 201 };
  const perKind = { page: 0, script: 0, enquiry: 0, upload: 0 };
  for (const entry of records) perKind[entry.kind] += 1;
  return {
    requests: records.length,
    perKind,
    failed: records.filter((entry) => entry.status !== expected[entry.kind]),
    assetNotFound: records.filter((entry) => entry.kind === "script" && entry.status === 404),
    longestWaitMs: Math.max(0, ...records.map((entry) => entry.endedAt - entry.startedAt)),
    enquiriesAccepted,
  };
}
