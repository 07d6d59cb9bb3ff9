import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/** A checkout holding only scripts/serve.mjs and stand-in server entries that print where they run from. */
async function checkoutWith(builds: { own?: boolean; release?: string }) {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-serve-"));
  await fs.mkdir(path.join(root, "scripts"));
  await fs.copyFile(path.resolve("scripts/serve.mjs"), path.join(root, "scripts/serve.mjs"));
  const entry = (dir: string) =>
    fs
      .mkdir(path.join(dir, "build/server"), { recursive: true })
      .then(() =>
        fs.writeFile(path.join(dir, "build/server/index.js"), "console.log(new URL(import.meta.url).pathname);\n"),
      );
  if (builds.own) await entry(root);
  if (builds.release) {
    await entry(path.join(root, "releases", builds.release));
    await fs.symlink(path.join("releases", builds.release), path.join(root, "current"));
  }
  return root;
}

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

function serve(root: string) {
  return spawnSync(process.execPath, [path.join(root, "scripts/serve.mjs")], { encoding: "utf8" });
}

describe("npm start (scripts/start.mjs) in a checkout with releases", () => {
  it("builds nothing: npm run serve runs the live release", async () => {
    const root = await checkoutWith({ release: "abc1234" });
    roots.push(root);
    await fs.mkdir(path.join(root, "scripts/lib"), { recursive: true });
    await fs.copyFile(path.resolve("scripts/start.mjs"), path.join(root, "scripts/start.mjs"));
    await fs.copyFile(
      path.resolve("scripts/lib/build-freshness.mjs"),
      path.join(root, "scripts/lib/build-freshness.mjs"),
    );
    const result = spawnSync(process.execPath, ["scripts/start.mjs"], { cwd: root, encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      "Serving the live release in current/ (npm run update makes it): not building build/.",
    );
  });
});

describe("npm run serve (scripts/serve.mjs)", () => {
  it("serves the checkout's own build in a fresh clone", async () => {
    const root = await checkoutWith({ own: true });
    roots.push(root);
    const result = serve(root);
    expect(result.stdout.trim()).toBe(path.join(await fs.realpath(root), "build/server/index.js"));
  });

  it("serves the live release through current/, from its real folder, when npm run update made one", async () => {
    const root = await checkoutWith({ own: true, release: "abc1234" });
    roots.push(root);
    const result = serve(root);
    // The real path: the running release keeps its own assets when `current` moves to the next one.
    expect(result.stdout.trim()).toBe(path.join(await fs.realpath(root), "releases/abc1234/build/server/index.js"));
  });

  it("never falls back to the checkout's own build when the live release has none", async () => {
    const root = await checkoutWith({ own: true, release: "abc1234" });
    roots.push(root);
    await fs.rm(path.join(root, "releases/abc1234/build"), { recursive: true });
    const result = serve(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("The live release has no build");
  });

  it("says what to do when there is no build at all", async () => {
    const root = await checkoutWith({});
    roots.push(root);
    const result = serve(root);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("There is no build to serve");
    expect(result.stderr).toContain("run npm run build first, or npm start");
  });
});
