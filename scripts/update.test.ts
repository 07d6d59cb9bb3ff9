import { spawn } from "node:child_process";
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commitDependencyUpgrade,
  createFakeDeployment,
  createServiceUser,
  createTemplate,
  handDataDirTo,
  type FakeDeployment,
} from "../tests/support/fake-deployment";

/** `npm run update`'s command line, run in a stand-in deployed checkout (tests/support/fake-deployment.ts). */
let template: string;
let site: FakeDeployment;
beforeAll(async () => {
  template = await createTemplate();
  site = await createFakeDeployment(template);
}, 60_000);
afterAll(async () => {
  await site.cleanup();
  await fs.rm(template, { recursive: true, force: true });
});

function update(
  args: string[],
  cwd = site.checkout,
  { on = site, umask = "022" } = {},
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    // This checkout's tsx and settings: the stand-in checkout has neither.
    const tsx = [
      path.resolve("node_modules/.bin/tsx"),
      "--tsconfig",
      path.resolve("tsconfig.json"),
      path.resolve("scripts/update.ts"),
    ];
    const child = spawn(
      "sh",
      ["-c", `umask ${umask} && exec "$@"`, "sh", ...tsx, "--env-file", on.context.envFile!, ...args],
      {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("close", (status) => resolve({ status, output }));
  });
}

// Each case starts tsx afresh: seconds each on a busy machine.
describe("npm run update (the command)", { timeout: 60_000 }, () => {
  it("--first-release makes the checkout's build the first release, once", async () => {
    const first = await update(["--first-release"]);
    expect(first.status, first.output).toBe(0);
    expect(first.output).toContain(
      `The first release is ${site.head()}: the systemd unit runs ${path.join(site.checkout, "current")}.`,
    );
    expect(readlinkSync(path.join(site.checkout, "current"))).toBe(`releases/${site.head()}`);
    const again = await update(["--first-release"]);
    expect(again.status).toBe(2);
    expect(again.output).toContain("There are releases here already: npm run update makes the next one.");
  });

  it("--rollback with one release says there is nothing to go back to (exit code 21)", async () => {
    const result = await update(["--rollback"]);
    expect(result.status).toBe(21);
    expect(result.output).toContain("There is no earlier release to go back to");
  });

  it("refuses an unknown option, and a --health-timeout that is not a number (exit code 2)", async () => {
    const unknown = await update(["--restart"]);
    expect(unknown.status).toBe(2);
    expect(unknown.output).toContain("npm run update: unknown option --restart. See docs/DEPLOY.md, step 11.");
    const timeout = await update(["--health-timeout", "soon"]);
    expect(timeout.status).toBe(2);
    expect(timeout.output).toContain("--health-timeout needs a number of seconds, such as 60");
  });

  it("runs only in the checkout itself, not in a release inside it (exit code 2)", async () => {
    const result = await update(["--no-restart"], path.join(site.checkout, "releases", site.head()));
    expect(result.status).toBe(2);
    expect(result.output).toContain(
      "npm run update: run it in the deployed checkout (the folder git cloned, /opt/cornerstone in the guide), not in",
    );
  });

  it("waits for no one: while another update runs here it stops at once (exit code 22)", async () => {
    // This test's own process stands for the other update.
    await fs.mkdir(path.join(site.checkout, "releases"), { recursive: true });
    await fs.writeFile(path.join(site.checkout, "releases/.update.lock"), `${process.pid}\n`);
    const result = await update(["--no-restart"]);
    await fs.rm(path.join(site.checkout, "releases/.update.lock"));
    expect(result.status).toBe(22);
    expect(result.output).toContain(
      `Another npm run update is running here (process ${process.pid}): wait for it to finish.`,
    );
  });

  it("as root, fetches and builds as DATA_DIR's owner, whose release it stays: 0644 files, 0755 folders, under umask 077", async () => {
    const user = createServiceUser();
    const served = await createFakeDeployment(template);
    try {
      if (user) handDataDirTo(served, user);
      // The install scripts and the build run as the service's user (this one, when not root).
      const builder = user?.uid ?? process.getuid!();
      const options = { on: served, umask: "077" };
      const noServiceFiles = ["--unit-file", "--socket-file", "--caddyfile"].flatMap((flag) => [
        flag,
        path.join(served.root, "none"),
      ]);
      // A new dependency: npm ci runs, and its install script (the hard-linked case is in scripts/lib/releases/update.test.ts).
      const next = await commitDependencyUpgrade(served);
      const result = await update(["--no-restart", ...noServiceFiles], served.checkout, options);
      expect(result.status, result.output).toBe(0);
      expect(result.output).toContain(
        user
          ? `As ${user.name} (DATA_DIR's owner): the backup, git fetch, npm ci and the build; as root: the switch and the restart.`
          : "Everything runs as",
      );
      const release = path.join(served.checkout, "releases", next);
      expect(readFileSync(path.join(release, "build/built-by"), "utf8")).toBe(String(builder));
      expect(readFileSync(path.join(release, "node_modules/fake-dep/installed-by"), "utf8")).toBe(String(builder));
      // Every file of the release and of the fetched repository is the builder's, writable by it alone; npm's cache is gone.
      // What root runs and keeps is root's: the record of releases, and the checkout's own node_modules.
      const entries = readdirSync(release, { recursive: true }).map((entry) => path.join(release, String(entry)));
      const mirror = path.join(served.checkout, "releases/.source.git");
      const mirrored = readdirSync(mirror, { recursive: true }).map((entry) => path.join(mirror, String(entry)));
      const owners = new Map([
        ...[...entries, ...mirrored, release, mirror].map((file) => [file, builder] as const),
        ...[
          path.join(served.checkout, "releases/releases.json"),
          path.join(served.checkout, "node_modules/fake-dep/index.js"),
        ].map((file) => [file, process.getuid!()] as const),
      ]);
      const wrong = [...owners]
        .map(([file, owner]) => ({ file, owner, stat: lstatSync(file) }))
        .filter(({ stat }) => !stat.isSymbolicLink())
        .filter(
          ({ file, owner, stat }) =>
            stat.uid !== owner ||
            (!file.startsWith(mirror) && (stat.mode & 0o7777) !== (stat.isDirectory() ? 0o755 : 0o644)),
        )
        .map(
          ({ file, stat }) => `${path.relative(served.checkout, file)} ${stat.uid} ${(stat.mode & 0o7777).toString(8)}`,
        );
      expect(wrong).toEqual([]);
      expect(entries.filter((file) => file.includes(".npm-cache"))).toEqual([]);
      expect(entries.length).toBeGreaterThan(20);
    } finally {
      await served.cleanup();
      user?.remove();
    }
  });
});
