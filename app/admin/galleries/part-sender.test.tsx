import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "~/lib/api-client";
import { createXhrPartSender, PART_STALL_MS, waitForConnection } from "./part-sender";
import { ConnectionLostError } from "./resumable-upload";

/** An XMLHttpRequest stand-in that answers when the test says. */
class FakeXhr {
  static last: FakeXhr;
  url = "";
  status = 0;
  statusText = "";
  responseText = "";
  headers: Record<string, string> = {};
  aborted = false;
  withCredentials = false;
  upload: { onprogress: ((e: { loaded: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.last = this;
  }
  open(_method: string, url: string) {
    this.url = url;
  }
  getResponseHeader(name: string) {
    return this.headers[name.toLowerCase()] ?? null;
  }
  send() {}
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  answer(status: number, headers: Record<string, string> = {}) {
    this.status = status;
    this.headers = headers;
    this.onload?.();
  }
}

const part = new Blob([new Uint8Array(1000)]);

describe("createXhrPartSender", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("resolves with the answer's ETag, reporting bytes sent, with no cookies for another origin", async () => {
    const progress: number[] = [];
    const sending = createXhrPartSender()("https://bucket/p1", part, { onProgress: (loaded) => progress.push(loaded) });
    FakeXhr.last.upload.onprogress?.({ loaded: 400 });
    FakeXhr.last.answer(200, { etag: '"abc"' });
    await expect(sending).resolves.toBe('"abc"');
    expect(progress).toEqual([400]);
    expect(FakeXhr.last.withCredentials).toBe(false);
  });

  it("takes a part that sends nothing for 45 s as a lost connection; progress keeps it alive", async () => {
    const sending = createXhrPartSender()("https://bucket/p1", part, { onProgress: () => {} });
    const outcome = sending.catch((error: unknown) => error);
    vi.advanceTimersByTime(PART_STALL_MS - 1000);
    FakeXhr.last.upload.onprogress?.({ loaded: 100 });
    vi.advanceTimersByTime(PART_STALL_MS - 1000);
    expect(FakeXhr.last.aborted).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(FakeXhr.last.aborted).toBe(true);
    expect(await outcome).toBeInstanceOf(ConnectionLostError);
  });

  it("reports a network error as a lost connection, a refusal as an ApiError, and a hidden ETag as neither", async () => {
    const send = createXhrPartSender();
    const dropped = send("https://bucket/p1", part, { onProgress: () => {} });
    FakeXhr.last.onerror?.();
    await expect(dropped).rejects.toBeInstanceOf(ConnectionLostError);
    const refused = send("https://bucket/p1", part, { onProgress: () => {} });
    FakeXhr.last.answer(403);
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    const hidden = send("https://bucket/p1", part, { onProgress: () => {} });
    FakeXhr.last.answer(200);
    const error = await hidden.catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ConnectionLostError);
    expect(String(error)).toMatch(/no ETag/);
  });

  it("stops when the upload is cancelled", async () => {
    const controller = new AbortController();
    const sending = createXhrPartSender()("https://bucket/p1", part, {
      onProgress: () => {},
      signal: controller.signal,
    });
    controller.abort();
    await expect(sending).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("waitForConnection", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("waits 1 s, 2 s, 4 s… between tries", async () => {
    let done = false;
    void waitForConnection(3).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(3999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });

  it("ends at once when the browser is back online", async () => {
    let done = false;
    void waitForConnection(6).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(done).toBe(false);
    window.dispatchEvent(new Event("online"));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });
});
