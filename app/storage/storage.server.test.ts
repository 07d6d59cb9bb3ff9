import { execFileSync } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { TEST_SIGNING_SECRET as SECRET, localStorageForEachTest } from "../../tests/support/temp-local-storage";
import { createLocalStorage } from "./local-storage.server";
import { InvalidStorageKeyError, ObjectTooLargeError } from "./storage-errors.server";
import type { ObjectStorage } from "./storage.server";

let rootDir: string;
let storage: ObjectStorage;
localStorageForEachTest((temp) => ({ rootDir, storage } = temp));

/** Every file under rootDir, temp files included (directories are not files). */
async function allFiles(): Promise<string[]> {
  const entries = await readdir(rootDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(rootDir, path.join(entry.parentPath, entry.name)));
}

function chunks(count: number, size: number, fill = 0x61): Readable {
  return Readable.from(Array.from({ length: count }, () => Buffer.alloc(size, fill)));
}

/** Emits some data, then fails like a client that disconnects mid-upload. */
function abortingStream(): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent++ < 3) this.push(Buffer.alloc(1024, 0x62));
      else this.destroy(new Error("client aborted"));
    },
  });
}

describe("local storage: objects", () => {
  it("writes, reads, checks and deletes an object", async () => {
    const parts = ["hello ", "stone", "masonry world, with a head longer than 32 bytes"];
    const result = await storage.write("originals/abc-123", Readable.from(parts.map((p) => Buffer.from(p))));
    const body = parts.join("");
    expect(result.bytes).toBe(body.length);
    expect(result.head.toString()).toBe(body.slice(0, 32));

    expect(await storage.exists("originals/abc-123")).toBe(true);
    const object = await storage.read("originals/abc-123");
    expect(object).not.toBeNull();
    expect(object!.bytes).toBe(body.length);
    expect(await text(object!.stream)).toBe(body);

    await storage.delete("originals/abc-123");
    expect(await storage.exists("originals/abc-123")).toBe(false);
    expect(await storage.read("originals/abc-123")).toBeNull();
    // Idempotent.
    await storage.delete("originals/abc-123");
    expect(await allFiles()).toEqual([]);
  });

  it("returns a short head for a short object and accepts an empty one", async () => {
    expect((await storage.write("variants/a.webp", Readable.from([Buffer.from("tiny")]))).head.toString()).toBe("tiny");
    const empty = await storage.write("variants/empty", Readable.from([]));
    expect(empty).toEqual({ bytes: 0, head: Buffer.alloc(0) });
    const object = await storage.read("variants/empty");
    expect(object!.bytes).toBe(0);
    expect(await text(object!.stream)).toBe("");
  });

  it("replaces an existing object", async () => {
    await storage.write("variants/x.avif", Readable.from([Buffer.from("first")]));
    await storage.write("variants/x.avif", Readable.from([Buffer.from("second")]));
    expect(await text((await storage.read("variants/x.avif"))!.stream)).toBe("second");
    expect(await allFiles()).toEqual([path.join("variants", "x.avif")]);
  });

  it("accepts exactly maxBytes", async () => {
    const result = await storage.write("originals/exact", chunks(5, 1000), { maxBytes: 5000 });
    expect(result.bytes).toBe(5000);
  });

  it("rejects with ObjectTooLargeError past maxBytes and leaves no file behind", async () => {
    const write = storage.write("originals/big", chunks(10, 1000), { maxBytes: 5000 });
    await expect(write).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await allFiles()).toEqual([]);
    expect(await storage.exists("originals/big")).toBe(false);
  });

  it("keeps the previous object when a replacement is too large", async () => {
    await storage.write("originals/keep", Readable.from([Buffer.from("original")]));
    await expect(storage.write("originals/keep", chunks(10, 1000), { maxBytes: 100 })).rejects.toBeInstanceOf(
      ObjectTooLargeError,
    );
    expect(await text((await storage.read("originals/keep"))!.stream)).toBe("original");
    expect(await allFiles()).toEqual([path.join("originals", "keep")]);
  });

  it("removes the temp file when the client stream fails mid-way", async () => {
    await expect(storage.write("originals/aborted", abortingStream())).rejects.toThrow("client aborted");
    expect(await allFiles()).toEqual([]);
  });

  it.each([
    "../escape",
    "originals/../../etc/passwd",
    "a..b",
    "/etc/passwd",
    "originals\\evil",
    "Originals/UPPER",
    "originals//double",
    "originals/",
    "",
    ".hidden",
    "originals/.temp.tmp",
    "originals/sp ace",
    "originals/%2e%2e",
    "originals/ünïcode",
    "a/./b",
  ])("rejects the bad key %j", async (key) => {
    await expect(storage.write(key, Readable.from([Buffer.from("x")]))).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.read(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.exists(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    expect(await allFiles()).toEqual([]);
  });

  it("refuses a short signing secret", () => {
    expect(() => createLocalStorage({ rootDir, signingSecret: "short" })).toThrow();
  });
});

describe("local storage: what registration and the start-up check use", () => {
  it("sizes an object, reads its first bytes and moves it", async () => {
    await storage.write("originals/a-1", Readable.from([Buffer.from("0123456789")]));
    expect(await storage.stat("originals/a-1")).toEqual({ bytes: 10 });
    expect(await storage.readHead("originals/a-1", 4)).toEqual(Buffer.from("0123"));
    expect(await storage.readHead("originals/a-1", 32)).toEqual(Buffer.from("0123456789"));
    await storage.move("originals/a-1", "archive/b-2");
    expect(await storage.stat("originals/a-1")).toBeNull();
    expect(await storage.readHead("originals/a-1", 4)).toBeNull();
    expect(await storage.stat("archive/b-2")).toEqual({ bytes: 10 });
    await expect(storage.move("originals/none", "originals/x")).rejects.toThrow();
  });

  it("recognises its own upload URLs, on this site's origins only", async () => {
    const own = ["http://127.0.0.1:3000", "https://stone.example.nz"];
    const { uploadURL } = await storage.createUploadTarget("abc-123", new Date(Date.now() + 60_000));
    expect(storage.objectIdFromUploadUrl(new URL(uploadURL, own[0]), own)).toBe("abc-123");
    expect(storage.objectIdFromUploadUrl(new URL(uploadURL, own[1]), own)).toBe("abc-123");
    expect(storage.objectIdFromUploadUrl(new URL(uploadURL, "https://evil.example"), own)).toBeNull();
    expect(storage.objectIdFromUploadUrl(new URL("/media/abc-123", own[0]), own)).toBeNull();
    expect(storage.uploadMode).toBe("via-server");
    expect(storage.uploadOrigins).toEqual([]);
  });

  it("passes the start-up check on a writable directory, leaving nothing behind", async () => {
    await expect(storage.check({ siteOrigin: "http://127.0.0.1:3000" })).resolves.toBeUndefined();
    expect(await allFiles()).toEqual([]);
  });

  it("fails the start-up check with a clear message when the directory cannot be written", async () => {
    const blocked = path.join(rootDir, "not-a-directory");
    await import("node:fs/promises").then((fs) => fs.writeFile(blocked, "a file where the storage root should be"));
    const broken = createLocalStorage({ rootDir: blocked, signingSecret: SECRET });
    await expect(broken.check({ siteOrigin: "http://127.0.0.1:3000" })).rejects.toThrow(
      /Cannot write and read files in .*DATA_DIR/s,
    );
  });
});

describe("local storage: files and listings (backups)", () => {
  it("an abort stops writeFile and leaves neither the object nor a temp file", async () => {
    // The source is a named pipe: the copy cannot end before this test closes it. Once a megabyte
    // has been taken from it the copy is surely mid-way; the abort comes then, and the pipe is closed
    // after it, so a copy that ignored the abort would finish.
    const source = path.join(rootDir, "..", `pipe-${path.basename(rootDir)}`);
    execFileSync("mkfifo", [source]);
    const stop = new AbortController();
    try {
      const copy = storage.writeFile("backups/big.tar.gz", source, { signal: stop.signal });
      const writer = createWriteStream(source);
      writer.on("error", () => {});
      // A pipe holds 64 KB: this write is done only once the copy has read nearly all of it.
      await new Promise<void>((resolve, reject) =>
        writer.write(Buffer.alloc(1024 * 1024), (error) => (error ? reject(error) : resolve())),
      );
      stop.abort(new Error("shutting down"));
      writer.end();
      await expect(copy).rejects.toMatchObject({ name: "AbortError" });
    } finally {
      await rm(source, { force: true });
    }
    expect(await storage.exists("backups/big.tar.gz")).toBe(false);
    expect(await readdir(path.join(rootDir, "backups")).catch(() => [])).toEqual([]);
  });

  it("writeFile copies a local file in; list gives the keys under a prefix with their sizes, sorted, without temp files", async () => {
    const source = path.join(rootDir, "..", `source-${path.basename(rootDir)}`);
    await writeFile(source, "archive bytes");
    try {
      expect(await storage.writeFile("backups/b.tar.gz", source)).toEqual({ bytes: 13 });
    } finally {
      await rm(source, { force: true });
    }
    await storage.write("backups/a.tar.gz", Readable.from([Buffer.from("x")]));
    await storage.write("variants/c.jpg", Readable.from([Buffer.from("yy")]));
    await writeFile(path.join(rootDir, "backups", ".b.tar.gz.123.tmp"), "half");
    expect(await storage.list("backups/")).toEqual([
      { key: "backups/a.tar.gz", bytes: 1 },
      { key: "backups/b.tar.gz", bytes: 13 },
    ]);
    expect((await storage.list("")).map((o) => o.key)).toEqual([
      "backups/a.tar.gz",
      "backups/b.tar.gz",
      "variants/c.jpg",
    ]);
    expect(
      await createLocalStorage({ rootDir: path.join(rootDir, "missing"), signingSecret: SECRET }).list("backups/"),
    ).toEqual([]);
  });
});
