// The registry reachable from this workplace leaves out some platform builds
// (darwin, win32, musl …) of rollup and Tailwind's oxide. `npm install` then
// writes a lock file without them, and `npm ci` refuses it as "Missing: …".
// This adds the absent optional platform packages back as entries that carry
// only their version and platform, so npm skips them on this machine just as
// it would with a complete lock file. Run it after any dependency change:
//   node scripts/complete-lockfile.mjs
// See docs/decisions/0009-lock-file-platform-packages.md.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const operatingSystems = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "openbsd",
  "openharmony",
  "win32",
  "sunos",
  "aix",
  "netbsd",
];
const cpus = ["arm64", "x64", "arm", "ia32", "loong64", "ppc64", "riscv64", "s390x", "mips64el", "wasm32"];

/** Reads os, cpu and libc from names such as `rollup-linux-arm64-musl`. */
function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((part) => operatingSystems.includes(part));
  const cpu = parts.find((part) => cpus.includes(part)) ?? (parts.includes("arm") ? "arm" : undefined);
  if (parts.includes("wasm32")) return { cpu: ["wasm32"] };
  if (!os || !cpu) return undefined;
  const platform = { os: [os], cpu: [cpu] };
  if (os === "linux") platform.libc = [parts.includes("musl") || parts.includes("musleabihf") ? "musl" : "glibc"];
  return platform;
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  if (!entry.optionalDependencies) continue;
  const base = path === "" ? "" : `${path}/`;
  for (const [name, version] of Object.entries(entry.optionalDependencies)) {
    const nestedPath = `${base}node_modules/${name}`;
    const hoistedPath = `node_modules/${name}`;
    if (packages[nestedPath] || packages[hoistedPath]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    packages[hoistedPath] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added += 1;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b, "en"))),
);
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform package entr${added === 1 ? "y" : "ies"}`);
