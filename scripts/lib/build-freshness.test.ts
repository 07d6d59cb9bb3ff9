import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rebuildReason } from "./build-freshness.mjs";

/** A checkout in a temporary folder: every input of the build, and (optionally) a build, with chosen times. */
let root: string;
const BUILT_AT = new Date("2026-03-01T10:00:00Z");
const BEFORE = new Date("2026-03-01T09:00:00Z");
const AFTER = new Date("2026-03-01T11:00:00Z");

function write(file: string, at: Date) {
  const full = path.join(root, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, "x");
  fs.utimesSync(full, at, at);
}

// Every kind of input the build is made from (the lock file, app/, server/, public/, the build configuration).
const INPUTS = [
  "package-lock.json",
  "package.json",
  "vite.config.ts",
  "react-router.config.ts",
  "tsconfig.json",
  "scripts/precompress-assets.mjs",
  "app/routes/home.tsx",
  "server/index.ts",
  "public/favicon.ico",
];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-build-freshness-"));
  for (const file of INPUTS) write(file, BEFORE);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function build(at = BUILT_AT) {
  write("build/client/assets/root-abc.js", at);
  write("build/server/index.js", at);
}

describe("npm start skips the build", () => {
  it("when the build is newer than every input", () => {
    build();
    // Precompressed copies are written after the bundles: they never make a build look older.
    write("build/client/assets/root-abc.js.br", AFTER);
    expect(rebuildReason(root)).toBeNull();
  });

  it("but builds a fresh clone, and a build that stopped half-way", () => {
    expect(rebuildReason(root)).toBe("there is no complete build yet");
    write("build/client/assets/root-abc.js", BUILT_AT);
    expect(rebuildReason(root)).toBe("there is no complete build yet");
  });

  it.each([...INPUTS, "app/admin/deep/new-file.ts"])("but builds when %s changed after the build", (file) => {
    build();
    write(file, AFTER);
    expect(rebuildReason(root)).toBe(`${file} changed after the last build`);
  });

  it("judges by the build's oldest output (a client bundle older than an input means the build missed it)", () => {
    build();
    write("build/client/assets/root-abc.js", BEFORE);
    write("app/routes/home.tsx", new Date("2026-03-01T09:30:00Z"));
    expect(rebuildReason(root)).toBe("app/routes/home.tsx changed after the last build");
  });

  // The build's time is that of its oldest output; an input saved in the same instant may have been
  // saved just after the build read it (file times are coarse on some disks), so it counts as newer.
  it.each([
    ["60 s after the build", 60_000],
    ["1 s after the build", 1_000],
    ["at the very time of the build", 0],
  ])("builds when an input was saved %s", (_when, afterMs) => {
    build();
    write("server/index.ts", new Date(BUILT_AT.getTime() + afterMs));
    expect(rebuildReason(root)).toBe("server/index.ts changed after the last build");
  });

  it("skips the build when the newest input is 1 ms older than the build", () => {
    build();
    write("server/index.ts", new Date(BUILT_AT.getTime() - 1));
    expect(rebuildReason(root)).toBeNull();
  });

  it("ignores files outside the build's inputs", () => {
    build();
    write("README.md", AFTER);
    write("tests/e2e/home.spec.ts", AFTER);
    write("docs/DEPLOY.md", AFTER);
    expect(rebuildReason(root)).toBeNull();
  });
});
