import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureAdministrator } from "~/auth/auth.server";
import { createLogger } from "~/lib/logger.server";
import { createTestContext, type TestContext } from "./helpers";

let lines: string[];
let ctx: TestContext;
let api: TestContext["api"];

beforeEach(async () => {
  lines = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      callback();
    },
  });
  ctx = await createTestContext({ LOG_LEVEL: "info" }, { logger: createLogger({ level: "info", destination }) });
  await ensureAdministrator(ctx.services, { username: "owner", password: "the secret password" });
  api = ctx.api;
});
afterEach(async () => {
  await ctx.close();
});

describe("request logs", () => {
  it("are one JSON line per request with method, path, status and time", async () => {
    await api.get("/api/content/hero.title?utm=abc").expect(200);
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request");
    expect(entry).toMatchObject({
      method: "GET",
      path: "/api/content/hero.title",
      status: 200,
      ms: expect.any(Number),
    });
    expect(JSON.stringify(entry)).not.toContain("utm=abc");
  });

  it("never contain passwords, cookies or session tokens", async () => {
    await api.post("/api/login").send({ username: "owner", password: "a wrong secret guess" }).expect(401);
    const ok = await api.post("/api/login").send({ username: "owner", password: "the secret password" }).expect(200);
    const cookie = ([] as string[]).concat(ok.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
    await api.get("/api/auth/user?password=in-the-url").set("Cookie", cookie).expect(200);
    const all = lines.join("\n");
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(all).not.toContain("a wrong secret guess");
    expect(all).not.toContain("the secret password");
    expect(all).not.toContain("in-the-url");
    expect(all).not.toContain(cookie.split("=")[1]!);
    expect(all).toContain("failed sign-in");
  });
});
