import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFakeDeployment, createTemplate, type FakeDeployment } from "../../../tests/support/fake-deployment";
import { EXIT } from "./context";
import { runRollback } from "./rollback";
import { runUpdate } from "./update";

/** When a step of `npm run update` fails, and --rollback, on a stand-in project (tests/support/fake-deployment.ts). */
let template: string;
/** The template, updated once: copied for each test, so each starts with two releases. */
let updated: FakeDeployment;
let updatedLive: string;
beforeAll(async () => {
  template = await createTemplate();
  updated = await createFakeDeployment(template);
  updatedLive = await updated.commit({ "src/page.js": "export const text = 'live';\n" });
  expect(await runUpdate(updated.context, { noRestart: false })).toBe(EXIT.ok);
}, 90_000);
afterAll(async () => {
  await updated.cleanup();
  await fs.rm(template, { recursive: true, force: true });
});

const deployments: FakeDeployment[] = [];
afterEach(async () => {
  for (const deployment of deployments.splice(0)) await deployment.cleanup();
});

/** A site already updated once (so it has releases), and its live release. */
async function updatedSite(): Promise<{ site: FakeDeployment; live: string }> {
  const site = await createFakeDeployment(updated.root);
  deployments.push(site);
  return { site, live: updatedLive };
}

const PAGE_CHANGE = { "src/page.js": "export const text = 'next';\n" };

/** Each step made to fail its own way: what to change first, and the exit code it must end with. */
const FAILURES: { step: string; code: number; prepare: (site: FakeDeployment) => Promise<void> }[] = [
  {
    step: "1 of 7 (backup)",
    code: EXIT.backup,
    prepare: async (site) => void (await fs.writeFile(path.join(site.dataDir, "BACKUP_FAILS"), "")),
  },
  {
    step: "2 of 7 (fetch)",
    code: EXIT.fetch,
    // Upstream history rewritten: the live commit is no longer in it.
    prepare: async (site) => {
      spawnSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--amend", "--quiet", "-m", "Rewritten"],
        { cwd: site.upstream },
      );
    },
  },
  {
    step: "3 of 7 (install)",
    code: EXIT.install,
    prepare: async (site) =>
      void (await site.commit({
        ...PAGE_CHANGE,
        "package-lock.json": readFileSync(path.join(site.upstream, "package-lock.json"), "utf8").replace(
          /"integrity": "[^"]+"/,
          '"integrity": "sha512-broken"',
        ),
      })),
  },
  {
    step: "4 of 7 (build)",
    code: EXIT.build,
    prepare: async (site) => void (await site.commit({ ...PAGE_CHANGE, BUILD_FAILS: "" })),
  },
  {
    step: "5 of 7 (assets)",
    code: EXIT.assets,
    prepare: async (site) => void (await site.commit({ ...PAGE_CHANGE, BUILD_MAKES_NO_ASSETS: "" })),
  },
  {
    step: "6 of 7 (switch)",
    code: EXIT.switch,
    // Something in the way of the new link.
    prepare: async (site) => {
      await site.commit(PAGE_CHANGE);
      await fs.mkdir(path.join(site.checkout, "current.next/in-the-way"), { recursive: true });
    },
  },
];

describe("npm run update, when a step fails", { timeout: 120_000 }, () => {
  it.each(FAILURES)(
    "step $step: stops with exit code $code, names the step, and the live release keeps serving",
    async ({ step, code, prepare }) => {
      const { site, live } = await updatedSite();
      await prepare(site);
      const headBefore = site.head();
      const releasesBefore = await site.releases();
      expect(await runUpdate(site.context, { noRestart: false })).toBe(code);
      expect(site.output.join("\n")).toContain(`Step ${step} failed:`);
      expect(site.output.at(-1)).toBe(`Nothing was switched: ${live} is still live. (exit code ${code})`);
      expect(await site.live()).toBe(live);
      expect(site.started()).toEqual([live]);
      // No half-made release is left, and the checkout is as it was.
      expect(await site.releases()).toEqual(releasesBefore);
      expect(site.head()).toBe(headBefore);
    },
  );

  it("step 7: a restart command that fails switches back to the previous release and restarts it (exit code 17)", async () => {
    const { site, live } = await updatedSite();
    const next = await site.commit({ ...PAGE_CHANGE, RESTART_FAILS: "" });
    const headBefore = site.head();
    expect(await runUpdate(site.context, { noRestart: false })).toBe(EXIT.restart);
    expect(site.output.join("\n")).toContain("Step 7 of 7 (restart) failed");
    expect(await site.live()).toBe(live);
    expect(site.started()).toEqual([live, live]);
    expect(await site.releases()).not.toContain(next);
    expect(site.head()).toBe(headBefore);
  });

  it("a release that does not answer /healthz within 60 s is switched back, without a restore when it changed nothing (exit code 18)", async () => {
    const { site, live } = await updatedSite();
    const next = await site.commit({ ...PAGE_CHANGE, UNHEALTHY: "" });
    const before = site.clock.now().getTime();
    expect(await runUpdate(site.context, { noRestart: false })).toBe(EXIT.unhealthy);
    // 60 s on the injected clock, not on the wall.
    expect(site.clock.now().getTime() - before).toBeGreaterThanOrEqual(60_000);
    expect(site.output.join("\n")).toContain(
      `${next} did not answer http://127.0.0.1:3000/healthz with 200 within 60 s. Switching back to ${live}.`,
    );
    expect(await site.live()).toBe(live);
    expect(site.started()).toEqual([live, next, live]);
    expect(existsSync(path.join(site.dataDir, "restored.log"))).toBe(false);
  });

  it.each([500, 502])(
    "a release that answers /healthz with %i, not 200, is switched back (exit code 18)",
    async (status) => {
      const { site, live } = await updatedSite();
      const next = await site.commit({ ...PAGE_CHANGE, UNHEALTHY: String(status) });
      expect(await runUpdate(site.context, { noRestart: false })).toBe(EXIT.unhealthy);
      expect(site.output.join("\n")).toContain(
        `${next} did not answer http://127.0.0.1:3000/healthz with 200 within 60 s.`,
      );
      expect(await site.live()).toBe(live);
      expect(site.started()).toEqual([live, next, live]);
    },
  );

  it("the release switched back to gets the full minute to answer, whatever --health-timeout gave the new one", async () => {
    const { site, live } = await updatedSite();
    await site.commit({ ...PAGE_CHANGE, UNHEALTHY: "" });
    site.context.healthTimeoutMs = 10_000;
    // The previous release, started again, takes 30 s to answer (a busy machine).
    const probe = site.context.probe;
    let answersFrom = 0;
    site.context.probe = async (url) => {
      if (site.started().length === 3) answersFrom ||= site.clock.now().getTime() + 30_000;
      return answersFrom && site.clock.now().getTime() < answersFrom ? null : probe(url);
    };
    expect(await runUpdate(site.context, { noRestart: false })).toBe(EXIT.unhealthy);
    expect(site.output.filter((line) => line.startsWith("  Waiting up to"))).toEqual([
      "  Waiting up to 10 s for http://127.0.0.1:3000/healthz to answer 200…",
      "  Waiting up to 60 s for http://127.0.0.1:3000/healthz to answer 200…",
    ]);
    expect(await site.live()).toBe(live);
  });

  it("a release that ran a migration and then failed: the backup from step 1 is restored by the previous release's code", async () => {
    const { site, live } = await updatedSite();
    await site.commit({
      ...PAGE_CHANGE,
      UNHEALTHY: "",
      MIGRATES: "0002-added-by-the-new-release\n",
      "app/db/migrations/0002-added-by-the-new-release.ts": "export {};\n",
    });
    expect(await runUpdate(site.context, { noRestart: false })).toBe(EXIT.unhealthy);
    const backup = /The backup taken before this update: (\S+)/.exec(site.output.join("\n"))![1]!;
    expect(readFileSync(path.join(site.dataDir, "restored.log"), "utf8")).toBe(
      `${backup} by ${path.join(site.checkout, "releases", live)}\n`,
    );
    expect(JSON.parse(readFileSync(path.join(site.dataDir, "applied.json"), "utf8"))).toEqual(["0001-initial"]);
    expect(site.output.join("\n")).toContain("ran 0002-added-by-the-new-release, which");
    expect(await site.live()).toBe(live);
  });
});

describe("npm run update -- --rollback", { timeout: 120_000 }, () => {
  it("goes back to the previous release and restarts it, and leaves the checkout as it was", async () => {
    const { site, live } = await updatedSite();
    const headBefore = site.head();
    const previous = site.started().length
      ? JSON.parse(readFileSync(path.join(site.checkout, "releases/releases.json"), "utf8")).history[0].name
      : null;
    expect(await runRollback(site.context)).toBe(EXIT.ok);
    expect(await site.live()).toBe(previous);
    expect(site.started()).toEqual([live, previous]);
    expect(site.head(), site.output.join("\n")).toBe(headBefore);
    expect(site.output.at(-1)).toBe(
      `Rolled back: ${previous} is live. ${live} stays in releases/ until the next update.`,
    );
  });

  it("refuses when a migration ran since, naming the backup that brings the data back", async () => {
    const { site } = await updatedSite();
    const next = await site.commit({
      ...PAGE_CHANGE,
      MIGRATES: "0002-added\n",
      "app/db/migrations/0002-added.ts": "export {};\n",
    });
    expect(await runUpdate(site.context, { noRestart: false })).toBe(EXIT.ok);
    const backup = /The backup taken before this update: (\S+)/.exec(site.output.join("\n"))![1]!;
    site.output.length = 0;
    expect(await runRollback(site.context)).toBe(EXIT.rollbackRefused);
    const said = site.output.join("\n");
    expect(said).toContain("since it was live the database had 0002-added, which");
    expect(said).toContain(`The backup taken just before the update, ${backup}, has the data as`);
    expect(said).toContain(`npm run restore -- ${backup} --env-file ${site.context.envFile}`);
    expect(await site.live()).toBe(next);
  });

  it("says so when there is nothing to go back to", async () => {
    const site = await createFakeDeployment(template);
    deployments.push(site);
    expect(await runRollback(site.context)).toBe(EXIT.nothingToRollBackTo);
  });
});
