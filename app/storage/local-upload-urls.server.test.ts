import { describe, expect, it } from "vitest";
import { localStorageForEachTest } from "../../tests/support/temp-local-storage";
import { createLocalStorage } from "./local-storage.server";
import { InvalidStorageKeyError } from "./storage-errors.server";
import type { ObjectStorage } from "./storage.server";

let rootDir: string;
let storage: ObjectStorage;
localStorageForEachTest((temp) => ({ rootDir, storage } = temp));

describe("local storage: signed upload targets", () => {
  const objectId = "0f8fad5b-d9cb-469f-a165-70867728950e";
  const now = new Date("2030-01-01T00:00:00Z");
  const expiresAt = new Date(now.getTime() + 15 * 60_000);

  function parse(uploadURL: string) {
    const url = new URL(uploadURL, "http://localhost");
    return {
      pathname: url.pathname,
      objectId: decodeURIComponent(url.pathname.split("/").pop()!),
      expires: url.searchParams.get("expires")!,
      signature: url.searchParams.get("signature")!,
    };
  }

  it("makes a same-origin URL that verifies", async () => {
    const { uploadURL, key } = await storage.createUploadTarget(objectId, expiresAt);
    expect(key).toBe(`originals/${objectId}`);
    expect(uploadURL).toMatch(/^\/api\/uploads\/[a-z0-9-]+\?expires=\d+&signature=[0-9a-f]{64}$/);
    const target = parse(uploadURL);
    expect(target.pathname).toBe(`/api/uploads/${objectId}`);
    expect(target.expires).toBe(String(expiresAt.getTime()));
    expect(
      storage.verifyUploadTarget(target.objectId, { expires: target.expires, signature: target.signature }, now),
    ).toBe("ok");
  });

  it("signs a declared size and type into the URL: changed, dropped or added, they no longer verify", async () => {
    const { uploadURL } = await storage.createUploadTarget(objectId, expiresAt, {
      bytes: 123456,
      contentType: "image/jpeg",
    });
    expect(uploadURL).toMatch(
      /^\/api\/uploads\/[a-z0-9-]+\?expires=\d+&size=123456&type=image%2Fjpeg&signature=[0-9a-f]{64}$/,
    );
    const { expires, signature } = parse(uploadURL);
    expect(storage.verifyUploadTarget(objectId, { expires, signature, size: "123456", type: "image/jpeg" }, now)).toBe(
      "ok",
    );
    expect(storage.verifyUploadTarget(objectId, { expires, signature, size: "123457", type: "image/jpeg" }, now)).toBe(
      "invalid",
    );
    expect(storage.verifyUploadTarget(objectId, { expires, signature, size: "123456", type: "text/html" }, now)).toBe(
      "invalid",
    );
    expect(storage.verifyUploadTarget(objectId, { expires, signature }, now)).toBe("invalid");
    expect(storage.verifyUploadTarget(objectId, { expires, signature, size: "123456" }, now)).toBe("invalid");
    const unsized = parse((await storage.createUploadTarget(objectId, expiresAt)).uploadURL);
    expect(storage.verifyUploadTarget(objectId, { ...unsized, size: "1", type: "image/png" }, now)).toBe("invalid");
  });

  it("rejects a tampered signature, object id or expiry as invalid", async () => {
    const target = parse((await storage.createUploadTarget(objectId, expiresAt)).uploadURL);
    const flipped = (target.signature[0] === "a" ? "b" : "a") + target.signature.slice(1);
    expect(storage.verifyUploadTarget(objectId, { expires: target.expires, signature: flipped }, now)).toBe("invalid");
    expect(
      storage.verifyUploadTarget("another-object", { expires: target.expires, signature: target.signature }, now),
    ).toBe("invalid");
    expect(
      storage.verifyUploadTarget(
        objectId,
        { expires: String(Number(target.expires) + 60_000), signature: target.signature },
        now,
      ),
    ).toBe("invalid");
  });

  it("rejects malformed input as invalid", async () => {
    const target = parse((await storage.createUploadTarget(objectId, expiresAt)).uploadURL);
    expect(
      storage.verifyUploadTarget(objectId, { expires: target.expires, signature: target.signature.toUpperCase() }, now),
    ).toBe("invalid");
    expect(
      storage.verifyUploadTarget(objectId, { expires: target.expires, signature: target.signature.slice(2) }, now),
    ).toBe("invalid");
    expect(storage.verifyUploadTarget(objectId, { expires: target.expires, signature: "" }, now)).toBe("invalid");
    expect(storage.verifyUploadTarget(objectId, { expires: "soon", signature: target.signature }, now)).toBe("invalid");
    expect(storage.verifyUploadTarget("../x", { expires: target.expires, signature: target.signature }, now)).toBe(
      "invalid",
    );
  });

  it("rejects a URL signed with another secret", async () => {
    const other = createLocalStorage({ rootDir, signingSecret: "t".repeat(32) });
    const target = parse((await other.createUploadTarget(objectId, expiresAt)).uploadURL);
    expect(storage.verifyUploadTarget(objectId, { expires: target.expires, signature: target.signature }, now)).toBe(
      "invalid",
    );
  });

  it("reports a genuine but past URL as expired", async () => {
    const target = parse((await storage.createUploadTarget(objectId, expiresAt)).uploadURL);
    const later = new Date(expiresAt.getTime() + 1);
    expect(storage.verifyUploadTarget(objectId, { expires: target.expires, signature: target.signature }, later)).toBe(
      "expired",
    );
    // Exactly at the expiry instant it is still accepted.
    expect(
      storage.verifyUploadTarget(objectId, { expires: target.expires, signature: target.signature }, expiresAt),
    ).toBe("ok");
  });

  it("uses the current time by default", async () => {
    const past = parse((await storage.createUploadTarget(objectId, new Date(Date.now() - 1000))).uploadURL);
    expect(storage.verifyUploadTarget(objectId, { expires: past.expires, signature: past.signature })).toBe("expired");
    const future = parse((await storage.createUploadTarget(objectId, new Date(Date.now() + 60_000))).uploadURL);
    expect(storage.verifyUploadTarget(objectId, { expires: future.expires, signature: future.signature })).toBe("ok");
  });

  it("refuses to sign an unsafe object id", async () => {
    await expect(storage.createUploadTarget("../evil", expiresAt)).rejects.toThrow(InvalidStorageKeyError);
    await expect(storage.createUploadTarget("a/b", expiresAt)).rejects.toThrow(InvalidStorageKeyError);
  });
});
