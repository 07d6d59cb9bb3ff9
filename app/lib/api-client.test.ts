import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { apiRequest, getJson, isUnauthorizedError } from "./api-client";

// A real local HTTP server stands in for the API.
let server: http.Server;
let base: string;
const seen: { method?: string; contentType?: string; body?: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, contentType: req.headers["content-type"], body });
      if (req.url === "/ok") return res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
      if (req.url === "/text") return res.writeHead(400).end('{"message":"Name is required"}');
      if (req.url === "/empty") return res.writeHead(401).end();
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("apiRequest", () => {
  it("sends JSON bodies and returns the response", async () => {
    const res = await apiRequest("POST", `${base}/ok`, { a: 1 });
    expect(await res.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toEqual({ method: "POST", contentType: "application/json", body: '{"a":1}' });
  });

  it("includes credentials (cookies) on every call", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      await apiRequest("PUT", `${base}/ok`, {});
      await getJson(`${base}/ok`);
      expect(spy.mock.calls.map(([, init]) => init?.credentials)).toEqual(["include", "include"]);
    } finally {
      spy.mockRestore();
    }
  });

  it("sends no body or content type without data", async () => {
    await apiRequest("DELETE", `${base}/ok`);
    expect(seen.at(-1)).toEqual({ method: "DELETE", contentType: undefined, body: "" });
  });

  it("turns a non-OK answer into '{status}: {text}'", async () => {
    await expect(apiRequest("GET", `${base}/text`)).rejects.toThrow('400: {"message":"Name is required"}');
  });

  it("uses the status text when the body is empty", async () => {
    const error = await apiRequest("GET", `${base}/empty`).catch((e: Error) => e);
    expect((error as Error).message).toBe("401: Unauthorized");
    expect(isUnauthorizedError(error)).toBe(true);
  });

  it("returns null for a 401 when asked to", async () => {
    expect(await getJson(`${base}/empty`, { on401: "returnNull" })).toBeNull();
    await expect(getJson(`${base}/empty`)).rejects.toThrow("401: Unauthorized");
  });
});
