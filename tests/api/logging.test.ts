import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureAdministrator } from "~/auth/auth.server";
import type { AppServices } from "~/services.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";

let dataDir: string;
let lines: string[];
let services: AppServices;
let api: ReturnType<typeof supertest>;

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-log-"));
  lines = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      callback();
    },
  });
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "info" });
  services = await openServices(env, createLogger({ level: "info", destination }));
  await ensureAdministrator(services, { username: "owner", password: "the secret password" });
  api = supertest(createApp(services));
});
afterEach(async () => {
  await services.db.destroy();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe("request logs", () => {
  it("are one JSON line per request with method, path, status and time", async () => {
    await api.get("/api/content/hero.title?utm=abc").expect(200);
    const entry = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request");
    expect(entry).toMatchObject({ method: "GET", path: "/api/content/hero.title", status: 200, ms: expect.any(Number) });
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
