import { describe, expect, it } from "vitest";
import { ApiError } from "~/lib/api-client";
import type { PartTargets, ResumableUpload } from "~/uploads/resumable-protocol";
import { ConnectionLostError, retryDelayMs, sendInParts, type JsonCall, type PartSender } from "./resumable-upload";

/** A site that takes a 2,500-byte file in parts of 1,000, answering as the test tells it to. */
function fakeSite(
  options: {
    partAnswers?: Record<string, (() => Promise<string>)[]>;
    expiresAt?: string;
    completeAnswers?: (() => unknown)[];
  } = {},
) {
  const calls: string[] = [];
  const sends: string[] = [];
  let urlVersion = 1;
  const targets = (): PartTargets => ({
    parts: [1, 2, 3].map((partNumber) => ({
      partNumber,
      bytes: partNumber < 3 ? 1000 : 500,
      url: `https://bucket/p${partNumber}?v=${urlVersion}`,
    })),
    expiresAt: options.expiresAt ?? new Date(Date.now() + 900_000).toISOString(),
  });
  const call: JsonCall = async <T>(method: string, path: string) => {
    calls.push(`${method} ${path}`);
    if (method === "POST" && path === "/api/uploads/resumable")
      return { uploadId: "u1", partBytes: 1000, partCount: 3, ...targets() } as ResumableUpload as T;
    if (method === "GET" && path === "/api/uploads/resumable/u1/parts") {
      urlVersion += 1;
      return targets() as T;
    }
    const answer = options.completeAnswers?.shift();
    if (answer) return answer() as T;
    return { imageURL: "https://bucket/incoming/u1" } as T;
  };
  const sendPart: PartSender = async (url, part, { onProgress }) => {
    sends.push(url);
    const partName = new URL(url).pathname.slice(1);
    const answer = options.partAnswers?.[partName]?.shift();
    if (answer) return answer();
    onProgress(part.size);
    return `"etag-${partName}"`;
  };
  return { calls, sends, call, sendPart };
}

const file = new Blob([new Uint8Array(2500)], { type: "image/jpeg" });
const noWait = async () => {};
const lost = () => Promise.reject(new ConnectionLostError());

describe("sendInParts", () => {
  it("sends each part once, keeps their ETags, and completes", async () => {
    const site = fakeSite();
    const progress: number[] = [];
    const result = await sendInParts({ file, ...site, waitToRetry: noWait, onProgress: (sent) => progress.push(sent) });
    expect(result).toEqual({ imageURL: "https://bucket/incoming/u1" });
    expect(site.sends).toEqual(["https://bucket/p1?v=1", "https://bucket/p2?v=1", "https://bucket/p3?v=1"]);
    expect(site.calls).toEqual(["POST /api/uploads/resumable", "POST /api/uploads/resumable/u1/complete"]);
    expect(progress.at(-1)).toBe(2500);
  });

  it("after a lost connection, sends again only the part that was in flight, waiting longer between tries", async () => {
    const site = fakeSite({ partAnswers: { p2: [lost, lost, lost] } });
    const waits: number[] = [];
    const connection: string[] = [];
    const progress: number[] = [];
    await sendInParts({
      file,
      ...site,
      waitToRetry: async (attempt) => void waits.push(retryDelayMs(attempt)),
      onConnection: (state) => connection.push(state),
      onProgress: (sent) => progress.push(sent),
    });
    expect(site.sends.map((url) => new URL(url).pathname)).toEqual(["/p1", "/p2", "/p2", "/p2", "/p2", "/p3"]);
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(connection).toEqual(["lost", "up"]);
    // What a cut-off part had sent is not counted: 1,000 confirmed bytes while the connection is down.
    expect(progress).toContain(1000);
  });

  it("asks for fresh URLs once when a part's URL ran out during a long outage", async () => {
    const expired = () => Promise.reject(new ApiError(403, "<Error><Code>AccessDenied</Code></Error>", "Forbidden"));
    const site = fakeSite({ partAnswers: { p2: [expired] } });
    await sendInParts({ file, ...site, waitToRetry: noWait });
    expect(site.sends).toEqual([
      "https://bucket/p1?v=1",
      "https://bucket/p2?v=1",
      "https://bucket/p2?v=2",
      "https://bucket/p3?v=2",
    ]);
    expect(site.calls).toContain("GET /api/uploads/resumable/u1/parts");
  });

  it("asks for fresh URLs before they run out", async () => {
    const site = fakeSite({ expiresAt: new Date(Date.now() + 30_000).toISOString() });
    await sendInParts({ file, ...site, waitToRetry: noWait });
    expect(site.calls.filter((c) => c === "GET /api/uploads/resumable/u1/parts")).toHaveLength(3);
  });

  it("tries a busy server again, up to five times, but gives up at once on a refusal or a 500", async () => {
    const busy = () => Promise.reject(new ApiError(503, '{"message":"busy"}', ""));
    const recovered = fakeSite({ partAnswers: { p1: [busy, busy, busy, busy] } });
    await expect(sendInParts({ file, ...recovered, waitToRetry: noWait })).resolves.toEqual({
      imageURL: "https://bucket/incoming/u1",
    });
    const stuck = fakeSite({ partAnswers: { p1: [busy, busy, busy, busy, busy] } });
    await expect(sendInParts({ file, ...stuck, waitToRetry: noWait })).rejects.toMatchObject({ status: 503 });

    for (const status of [500, 413, 415]) {
      const refusal = () => Promise.reject(new ApiError(status, '{"message":"no"}', ""));
      const refused = fakeSite({ partAnswers: { p1: [refusal] } });
      await expect(sendInParts({ file, ...refused, waitToRetry: noWait })).rejects.toMatchObject({ status });
      expect(refused.sends).toHaveLength(1);
    }
  });

  it("asks to complete again when the first answer was lost on the way", async () => {
    const site = fakeSite({ completeAnswers: [() => Promise.reject(new ConnectionLostError())] });
    await expect(sendInParts({ file, ...site, waitToRetry: noWait })).resolves.toEqual({
      imageURL: "https://bucket/incoming/u1",
    });
    expect(site.calls.filter((c) => c.endsWith("/complete"))).toHaveLength(2);
  });
});
