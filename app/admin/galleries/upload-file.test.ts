import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, isUnauthorizedError } from "~/lib/api-client";
import { UPLOAD_FAILED_MESSAGE, uploadFile } from "./upload-file";

type Listener = ((event: { loaded: number; total: number; lengthComputable: boolean }) => void) | null;

class FakeXhr {
  static last: FakeXhr;
  method = "";
  url = "";
  headers: Record<string, string> = {};
  withCredentials = false;
  body: unknown;
  status = 0;
  statusText = "";
  responseText = "";
  upload: { onprogress: Listener } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  aborted = false;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  respond(status: number, text = "", statusText = "") {
    this.status = status;
    this.responseText = text;
    this.statusText = statusText;
    this.onload?.();
  }
}

function jpeg(size = 1000) {
  return new File([new Uint8Array(size)], "wall.jpg", { type: "image/jpeg" });
}

describe("uploadFile", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("PUTs the raw file with its own type, never asking to send cookies cross-origin, reporting progress", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const file = jpeg();
    const progress: number[] = [];
    const done = uploadFile("/api/uploads/abc?expires=1&signature=f", file, { onProgress: (n) => progress.push(n) });
    const xhr = FakeXhr.last;
    expect(xhr.method).toBe("PUT");
    expect(xhr.url).toBe("/api/uploads/abc?expires=1&signature=f");
    expect(xhr.withCredentials).toBe(false);
    expect(xhr.headers["Content-Type"]).toBe("image/jpeg");
    expect(xhr.body).toBe(file);
    xhr.upload.onprogress?.({ loaded: 250, total: 1000, lengthComputable: true });
    xhr.upload.onprogress?.({ loaded: 900, total: 1000, lengthComputable: true });
    xhr.respond(200, '{"message":"Upload complete"}');
    await expect(done).resolves.toBeUndefined();
    expect(progress).toEqual([250, 900, 1000]);
  });

  it("rejects a refusal with the status and the server's text", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const done = uploadFile("/u", jpeg());
    FakeXhr.last.respond(415, '{"message":"The file is not a supported image"}', "Unsupported Media Type");
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(415);
    expect((error as Error).message).toBe('415: {"message":"The file is not a supported image"}');
  });

  it("treats a 401 as unauthorized", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const done = uploadFile("/u", jpeg());
    FakeXhr.last.respond(401, '{"message":"Unauthorized"}', "Unauthorized");
    expect(isUnauthorizedError(await done.catch((e: unknown) => e))).toBe(true);
  });

  it("rejects a network failure with 'Failed to upload image'", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const done = uploadFile("/u", jpeg());
    FakeXhr.last.onerror?.();
    await expect(done).rejects.toThrow(UPLOAD_FAILED_MESSAGE);
  });
});
