import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * `npm start` (scripts/start.mjs, then `npm run serve`) in a checkout of its own, as a child process
 * with a temporary DATA_DIR and a free PORT. The build is a stand-in (package.json's `build` script
 * here writes a build whose server answers /healthz and logs that it ran), so no test waits ~45 s for
 * React Router; scripts/start.mjs, scripts/serve.mjs, the freshness check and package.json's own
 * `start` and `serve` scripts are the real ones. Times are set with fs.utimes, never waited for.
 */

const BUILT_AT = new Date("2026-03-01T10:00:00Z");
const BEFORE = new Date("2026-03-01T09:00:00Z");

/** The stand-in server: answers /healthz with what it was started with, and stops on SIGTERM. */
const SERVER_ENTRY = `import http from "node:http";
const server = http.createServer((req, res) => {
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify({ path: req.url, dataDir: process.env.DATA_DIR, nodeEnv: process.env.NODE_ENV }));
});
server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;

/** The stand-in for \`react-router build\`: fails when asked to, otherwise writes a build and says so in builds.log. */
const BUILD_STAND_IN = `import fs from "node:fs";
if (fs.existsSync("fail-build")) process.exit(7);
fs.mkdirSync("build/server", { recursive: true });
fs.mkdirSync("build/client/assets", { recursive: true });
fs.writeFileSync("build/client/assets/root-abc.js", "");
fs.writeFileSync("build/server/index.js", ${JSON.stringify(SERVER_ENTRY)});
fs.appendFileSync("builds.log", "built\\n");
`;

const roots: string[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) await stop(child);
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function writeAt(root: string, file: string, text: string, at: Date) {
  const full = path.join(root, file);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, text);
  await fs.utimes(full, at, at);
}

/** A checkout with every input of the build dated BEFORE, and (when `built`) a build of its own dated BUILT_AT. */
async function checkout(options: { built: boolean }) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-start-"));
  roots.push(root);
  const real = JSON.parse(await fs.readFile("package.json", "utf8")) as { scripts: Record<string, string> };
  const packageJson = {
    name: "start-test",
    private: true,
    type: "module",
    scripts: { start: real.scripts.start, serve: real.scripts.serve, build: "node build-stand-in.mjs" },
  };
  await writeAt(root, "package.json", JSON.stringify(packageJson), BEFORE);
  for (const script of ["scripts/start.mjs", "scripts/serve.mjs", "scripts/lib/build-freshness.mjs"])
    await writeAt(root, script, await fs.readFile(script, "utf8"), BEFORE);
  await writeAt(root, "build-stand-in.mjs", BUILD_STAND_IN, BEFORE);
  for (const input of [
    "package-lock.json",
    "vite.config.ts",
    "react-router.config.ts",
    "tsconfig.json",
    "scripts/precompress-assets.mjs",
    "app/routes/home.tsx",
    "server/index.ts",
    "public/favicon.ico",
  ]) {
    await writeAt(root, input, "x", BEFORE);
  }
  if (options.built) {
    await writeAt(root, "build/client/assets/root-abc.js", "", BUILT_AT);
    await writeAt(root, "build/server/index.js", SERVER_ENTRY, BUILT_AT);
  }
  return root;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `npm start` in its own process group, so that SIGTERM reaches npm, the shell and the server alike. */
async function npmStart(root: string) {
  const port = await freePort();
  const dataDir = path.join(root, "data");
  const child = spawn("npm", ["start"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { port, dataDir, child, exited, output: () => output };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    // The group has gone already.
  }
  await exited;
}

/** The answer to GET /healthz, once the server listens (or what the process printed, if it exited first). */
async function healthz(started: Awaited<ReturnType<typeof npmStart>>) {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (started.child.exitCode !== null)
      throw new Error(`npm start exited (${started.child.exitCode}) before serving:\n${started.output()}`);
    const answer = await fetch(`http://127.0.0.1:${started.port}/healthz`).then(
      async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
      () => null,
    );
    if (answer) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`npm start never answered /healthz:\n${started.output()}`);
}

/** Whether every process of the group has exited within `ms`. */
async function processGroupGone(groupId: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      process.kill(-groupId, 0);
    } catch {
      return true;
    }
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const builds = (root: string) => fs.readFile(path.join(root, "builds.log"), "utf8").catch(() => "");

describe("npm start (scripts/start.mjs, then npm run serve)", () => {
  it("serves a build newer than every input as it is, without building, and stops on SIGTERM", async () => {
    const root = await checkout({ built: true });
    const started = await npmStart(root);
    expect(await healthz(started)).toEqual({
      status: 200,
      body: { path: "/healthz", dataDir: started.dataDir, nodeEnv: "production" },
    });
    expect(started.output()).toContain(
      "The build in build/ is newer than every file it is made from: not building again (npm run build forces it).",
    );
    expect(await builds(root)).toBe("");
    process.kill(-started.child.pid!, "SIGTERM");
    await started.exited;
    // npm can exit a moment before the server it started has closed: wait for the whole group.
    expect(await processGroupGone(started.child.pid!, 10_000)).toBe(true);
    await expect(fetch(`http://127.0.0.1:${started.port}/healthz`)).rejects.toThrow();
  });

  it("builds first when an input was saved after the build (here 60 s after), then serves the new build", async () => {
    const root = await checkout({ built: true });
    await writeAt(root, "app/routes/home.tsx", "changed", new Date(BUILT_AT.getTime() + 60_000));
    const started = await npmStart(root);
    expect((await healthz(started)).status).toBe(200);
    expect(started.output()).toContain("Building, as app/routes/home.tsx changed after the last build.");
    expect(await builds(root)).toBe("built\n");
  });

  it("builds a fresh clone (no build yet), then serves it", async () => {
    const root = await checkout({ built: false });
    const started = await npmStart(root);
    expect((await healthz(started)).status).toBe(200);
    expect(started.output()).toContain("Building, as there is no complete build yet.");
    expect(await builds(root)).toBe("built\n");
  });

  it("a build that fails: start.mjs exits with the build's status, so npm run serve never starts", async () => {
    const root = await checkout({ built: false });
    await writeAt(root, "fail-build", "", BEFORE);
    const result = spawnSync(process.execPath, ["scripts/start.mjs"], { cwd: root, encoding: "utf8" });
    expect(result.status).toBe(7);
    const started = await npmStart(root);
    expect(await started.exited).not.toBe(0);
    expect(started.output()).not.toContain("There is no build to serve");
  });
});
