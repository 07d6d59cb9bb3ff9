import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  commitDependencyUpgrade,
  createFakeDeployment,
  createServiceUser,
  createTemplate,
  handDataDirTo,
  type FakeDeployment,
} from "../../../tests/support/fake-deployment";
import { EXIT } from "./context";
import { runUpdate } from "./update";

/** `npm run update`'s steps on a stand-in project (tests/support/fake-deployment.ts); the real one runs in tests/e2e/update-operations.spec.ts. */
let template: string;
beforeAll(async () => {
  template = await createTemplate();
}, 60_000);
afterAll(() => fs.rm(template, { recursive: true, force: true }));

const deployments: FakeDeployment[] = [];
afterEach(async () => {
  for (const deployment of deployments.splice(0)) await deployment.cleanup();
});
async function deployment(): Promise<FakeDeployment> {
  const made = await createFakeDeployment(template);
  deployments.push(made);
  return made;
}

// The command sets this umask before it runs the update (scripts/update.ts); the tests' runner may have 077.
process.umask(0o022);
const update = (site: FakeDeployment, options = { noRestart: false }) => runUpdate(site.context, options);
const assets = (site: FakeDeployment, release: string) =>
  fs.readdir(path.join(site.checkout, "releases", release, "build/client/assets"));

// Several updates of a stand-in project per case, each running git and npm: seconds each on a busy machine.
describe("npm run update", { timeout: 120_000 }, () => {
  it("converts a checkout that runs its own build, then takes the seven steps in order and serves the new release", async () => {
    const site = await deployment();
    // Built by the service's user (DATA_DIR's owner), who may write the hard-linked node_modules' folder (Vite does).
    const user = createServiceUser();
    onTestFinished(() => user?.remove());
    if (user) handDataDirTo(site, user);
    site.context.dataDirUser = user?.name ?? null;
    const first = site.head();
    const second = await site.commit({ "src/page.js": "export const text = 'second';\n" });

    expect(await update(site)).toBe(EXIT.ok);
    const steps = site.output
      .filter((line) => line.startsWith("Step "))
      .map((line) => /^Step (\d) of 7, (\w+)/.exec(line)!.slice(1).join(" "));
    expect(steps).toEqual(["1 backup", "2 fetch", "3 install", "4 build", "5 assets", "6 switch", "7 restart"]);
    // The checkout's own build became the first release; the new one is live and was started.
    expect(await site.releases()).toEqual([first, second].sort());
    expect(await site.live()).toBe(second);
    expect(site.started()).toEqual([second]);
    // The checkout, whose code root runs, stays at what root cloned: the new commit went to the builder's copy.
    expect(site.head()).toBe(first);
    // Step 1's backup is named, and on record for a rollback.
    const backup = /The backup taken before this update: (\S+)/.exec(site.output.join("\n"))?.[1];
    expect(backup && existsSync(backup)).toBe(true);
    const state = JSON.parse(readFileSync(path.join(site.checkout, "releases/releases.json"), "utf8"));
    expect(state.history.map((record: { name: string }) => record.name)).toEqual([first, second]);
    expect(state.history[1].backup).toBe(backup);
    // The lock file did not change: node_modules are the previous release's files, hard-linked.
    const dep = (release: string) =>
      statSync(path.join(site.checkout, "releases", release, "node_modules/fake-dep/index.js"));
    expect(dep(second).ino).toBe(dep(first).ino);
    expect(site.output.join("\n")).toContain("package-lock.json is unchanged");
    // The previous release's hashed assets are in the new one, beside its own.
    const own = await assets(site, first);
    expect(await assets(site, second)).toEqual(expect.arrayContaining(own));
    expect((await assets(site, second)).length).toBe(own.length * 2);
    // The release is the builder's (this user's, when not root), but for the hard links to root's first release.
    const builder = user?.uid ?? process.getuid!();
    const release = path.join(site.checkout, "releases", second);
    expect(readFileSync(path.join(release, "build/built-by"), "utf8")).toBe(String(builder));
    const owners = new Set(
      readdirSync(release, { recursive: true })
        .filter((entry) => !String(entry).startsWith("node_modules/"))
        .map((entry) => lstatSync(path.join(release, String(entry))).uid),
    );
    expect([...owners]).toEqual([builder]);
    expect(lstatSync(path.join(release, "node_modules")).uid).toBe(builder);
    expect(lstatSync(path.join(release, "node_modules/fake-dep/index.js")).uid).toBe(process.getuid!());
  });

  it("prints the unit's and the Caddyfile's lines to change on a server set up by the earlier guide, and changes them only as root", async () => {
    const site = await deployment();
    const files = site.context.serviceFiles;
    const earlierUnit = readFileSync("deploy/cornerstone.service", "utf8")
      .replace("WorkingDirectory=/opt/cornerstone/current", "WorkingDirectory=/opt/cornerstone")
      .replace("/opt/cornerstone/current/build/server/index.js", "build/server/index.js");
    await fs.writeFile(files.unitFile, earlierUnit);
    await fs.writeFile(files.caddyfile, "example.co.nz {\n\treverse_proxy 127.0.0.1:3000\n}\n");
    // The socket unit comes from root's checkout (its code knows releases), never from a release the builder made.
    await fs.mkdir(path.join(site.checkout, "deploy"), { recursive: true });
    await fs.writeFile(
      path.join(site.checkout, "deploy/cornerstone.socket"),
      readFileSync("deploy/cornerstone.socket"),
    );
    await site.commit({ "src/page.js": "export const text = 'second';\n" });

    expect(await update(site)).toBe(EXIT.ok);
    const said = site.output.join("\n");
    expect(said).toContain("This server was set up before releases: these lines change");
    expect(said).toContain(`    + WorkingDirectory=${site.checkout}/current`);
    expect(said).toContain("    + \t\tlb_try_duration 30s");
    const asRoot = process.getuid?.() === 0;
    expect(readFileSync(files.unitFile, "utf8").includes(`WorkingDirectory=${site.checkout}/current`)).toBe(asRoot);
    expect(readFileSync(files.caddyfile, "utf8").includes("lb_try_duration 30s")).toBe(asRoot);
    expect(existsSync(files.socketFile)).toBe(asRoot);
    // With its own restart command (another service manager), the update goes on either way.
    expect(site.started()).toHaveLength(1);
  });

  it("runs npm ci when package-lock.json changed, and the checkout's own node_modules stay as root installed them", async () => {
    const site = await deployment();
    const second = await commitDependencyUpgrade(site);

    expect(await update(site)).toBe(EXIT.ok);
    expect(site.output.join("\n")).toContain("package-lock.json changed: npm ci");
    const version = (dir: string) =>
      JSON.parse(readFileSync(path.join(dir, "node_modules/fake-dep/package.json"), "utf8")).version;
    expect(version(path.join(site.checkout, "releases", second))).toBe("1.0.1");
    expect(version(site.checkout)).toBe("1.0.0");
  });

  it("stops after the switch with --no-restart, and says how to restart", async () => {
    const site = await deployment();
    const second = await site.commit({ "src/page.js": "export const text = 'second';\n" });
    expect(await update(site, { noRestart: true })).toBe(EXIT.ok);
    expect(await site.live()).toBe(second);
    expect(site.started()).toEqual([]);
    expect(site.output.at(-1)).toBe(
      `Switched: ${second} is current. Not restarted (--no-restart): run ${site.context.restartCommand} to serve it.`,
    );
  });

  it("does nothing more when the live release is the newest commit", async () => {
    const site = await deployment();
    await site.commit({ "src/page.js": "export const text = 'second';\n" });
    expect(await update(site)).toBe(EXIT.ok);
    site.output.length = 0;
    expect(await update(site)).toBe(EXIT.ok);
    expect(site.output.at(-1)).toMatch(/^Already up to date: \w+ is live/);
    expect(site.started()).toHaveLength(1);
  });

  it("keeps the last 3 releases", async () => {
    const site = await deployment();
    const names: string[] = [];
    for (const text of ["second", "third", "fourth"]) {
      names.push(await site.commit({ "src/page.js": `export const text = '${text}';\n` }));
      expect(await update(site)).toBe(EXIT.ok);
    }
    expect(await site.releases()).toEqual([...names].sort());
    expect(site.output.join("\n")).toMatch(/Deleted the older release\(s\) \w+\./);
  });

  it("never copies or writes through a link a build left: not its record of carried assets, not an asset", async () => {
    const site = await deployment();
    await fs.writeFile(path.join(site.root, "secret.txt"), "root's own file\n");
    await fs.writeFile(path.join(site.root, "outside.txt"), "untouched\n");
    // Its build leaves .carried-assets.json and build/client/assets/planted.js as links to those two files.
    await site.commit({ "src/page.js": "export const text = 'second';\n", BUILD_PLANTS_LINKS: site.root });
    expect(await update(site)).toBe(EXIT.ok);
    expect(readFileSync(path.join(site.root, "outside.txt"), "utf8")).toBe("untouched\n");
    const third = await site.commit({ "src/page.js": "export const text = 'third';\n", BUILD_PLANTS_LINKS: null });
    expect(await update(site)).toBe(EXIT.ok);
    expect(await assets(site, third)).not.toContain("planted.js");
  });

  it("carries assets that were live in the last 7 days, and leaves older ones behind", async () => {
    const site = await deployment();
    const first = await fs.readdir(path.join(site.checkout, "build/client/assets"));
    const second = await site.commit({ "src/page.js": "export const text = 'second';\n" });
    expect(await update(site)).toBe(EXIT.ok);
    const secondOwn = (await assets(site, second)).filter((name) => !first.includes(name));

    // Six days on: the first release's assets (last live when the second went live) still come along.
    site.clock.advance(6 * 24 * 3600_000);
    const third = await site.commit({ "src/page.js": "export const text = 'third';\n" });
    expect(await update(site)).toBe(EXIT.ok);
    expect(await assets(site, third)).toEqual(expect.arrayContaining([...first, ...secondOwn]));

    // Two more days: 8 days since the first release was live; the second's were live until the third took over.
    site.clock.advance(2 * 24 * 3600_000);
    const fourth = await site.commit({ "src/page.js": "export const text = 'fourth';\n" });
    expect(await update(site)).toBe(EXIT.ok);
    const carried = await assets(site, fourth);
    expect(carried).toEqual(expect.arrayContaining(secondOwn));
    expect(carried.filter((name) => first.includes(name))).toEqual([]);
    expect(site.output.join("\n")).toContain(`${first.length} older than 7 days left behind`);
  });
});
