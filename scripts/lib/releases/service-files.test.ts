import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { convertCaddyfile, convertUnit, describePlan, mayWrite, planServiceFiles } from "./service-files";

/** The unit and the Caddyfile as the guide shipped them before releases: the shipped ones with those lines as they were. */
const SHIPPED_UNIT = readFileSync("deploy/cornerstone.service", "utf8");
const EARLIER_UNIT = SHIPPED_UNIT.replace(
  "After=network-online.target cornerstone.socket",
  "After=network-online.target",
)
  .replace(/^Requires=cornerstone\.socket\n/m, "")
  .replace("WorkingDirectory=/opt/cornerstone/current", "WorkingDirectory=/opt/cornerstone")
  .replace("/opt/cornerstone/current/build/server/index.js", "build/server/index.js");
const SHIPPED_CADDYFILE = readFileSync("deploy/Caddyfile", "utf8");
// The directive's block ends at the first brace as indented as the directive.
const EARLIER_CADDYFILE = SHIPPED_CADDYFILE.replace(
  /reverse_proxy 127\.0\.0\.1:3000 \{[\s\S]*?\n\t\}/,
  "reverse_proxy 127.0.0.1:3000",
);

/** A file's settings: its lines without comments and blank lines. */
const settings = (text: string) => text.split("\n").filter((line) => line.trim() && !line.trim().startsWith("#"));

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-service-files-"));
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

describe("converting a server set up by the earlier guide", () => {
  it("turns the earlier unit into the shipped one: the live release through current, the port from cornerstone.socket", () => {
    expect(EARLIER_UNIT).not.toBe(SHIPPED_UNIT);
    const { changes, text } = convertUnit(EARLIER_UNIT, "/opt/cornerstone");
    expect(settings(text)).toEqual(settings(SHIPPED_UNIT));
    expect(changes).toEqual([
      { before: "After=network-online.target", after: "After=network-online.target cornerstone.socket" },
      { before: "WorkingDirectory=/opt/cornerstone", after: "WorkingDirectory=/opt/cornerstone/current" },
      {
        before: "ExecStart=/usr/bin/node --max-old-space-size=192 build/server/index.js",
        after: "ExecStart=/usr/bin/node --max-old-space-size=192 /opt/cornerstone/current/build/server/index.js",
      },
      { before: null, after: "Requires=cornerstone.socket" },
    ]);
    // Converted once, there is nothing left to change.
    expect(convertUnit(text, "/opt/cornerstone").changes).toEqual([]);
  });

  it("adds Caddy's hold-and-retry lines (and a new connection per request) to the reverse_proxy of the site's port, as deploy/Caddyfile has them", () => {
    const { changes, text } = convertCaddyfile(EARLIER_CADDYFILE, 3000);
    expect(settings(text)).toEqual(settings(SHIPPED_CADDYFILE));
    expect(changes).toHaveLength(1);
    expect(convertCaddyfile(text, 3000).changes).toEqual([]);
    // A block of its own keeps its lines; the retry lines go first in it.
    const withBlock = convertCaddyfile(
      "site {\n\treverse_proxy localhost:3000 {\n\t\theader_up X-Test 1\n\t}\n}\n",
      3000,
    ).text;
    expect(withBlock).toBe(
      "site {\n\treverse_proxy localhost:3000 {\n\t\tlb_try_duration 30s\n\t\tlb_try_interval 250ms\n\t\ttransport http {\n\t\t\tkeepalive off\n\t\t}\n\t\theader_up X-Test 1\n\t}\n}\n",
    );
    // Another upstream is not the site's.
    expect(convertCaddyfile("other {\n\treverse_proxy 127.0.0.1:8080\n}\n", 3000).changes).toEqual([]);
  });

  it("plans the files this server has, and prints each line to change", async () => {
    const checkout = path.join(tmp, "checkout");
    await fs.mkdir(path.join(checkout, "deploy"), { recursive: true });
    await fs.copyFile("deploy/cornerstone.socket", path.join(checkout, "deploy/cornerstone.socket"));
    const files = {
      unitFile: path.join(tmp, "cornerstone.service"),
      socketFile: path.join(tmp, "cornerstone.socket"),
      caddyfile: path.join(tmp, "Caddyfile"),
    };
    await fs.writeFile(files.unitFile, EARLIER_UNIT);
    await fs.writeFile(files.caddyfile, EARLIER_CADDYFILE);
    const plan = await planServiceFiles(checkout, files, { host: "127.0.0.2", port: 3000 });
    expect(plan.socket?.text).toContain("ListenStream=127.0.0.2:3000\n");
    const printed = describePlan(plan);
    expect(printed, printed.join("\n")).toContain(`  ${files.unitFile}:`);
    expect(printed).toContain(`    + WorkingDirectory=${checkout}/current`);
    expect(printed).toContain("    - WorkingDirectory=/opt/cornerstone");
    expect(printed).toContain(`  ${files.socketFile}:`);
    expect(printed).toContain(`  ${files.caddyfile}:`);
    expect(printed).toContain("    + \t\tlb_try_duration 30s");
    // No unit (another service manager) and no Caddyfile: nothing to say.
    const none = await planServiceFiles(
      checkout,
      { ...files, unitFile: path.join(tmp, "no.service"), caddyfile: path.join(tmp, "NoCaddyfile") },
      { host: "127.0.0.1", port: 3000 },
    );
    expect(none).toEqual({ unit: null, socket: null, caddy: null });
  });

  it("changes the server's files only as root, and only those it can write: any other user gets the lines to change", async () => {
    const unitFile = path.join(tmp, "writable.service");
    await fs.writeFile(unitFile, EARLIER_UNIT);
    const notYetThere = path.join(tmp, "new.socket");
    // Root may write a file there, or create one in a folder it can write.
    expect(await mayWrite(unitFile, 0)).toBe(true);
    expect(await mayWrite(notYetThere, 0)).toBe(true);
    // The file is writable, but not by root: the update only prints what to change.
    expect(await mayWrite(unitFile, 1000)).toBe(false);
    expect(await mayWrite(notYetThere, 1000)).toBe(false);
    // Nor a folder that is not there (a server without Caddy in its usual place).
    expect(await mayWrite(path.join(tmp, "no-such-folder", "Caddyfile"), 0)).toBe(false);
  });

  it("the converted files are valid: systemd-analyze verify and caddy adapt accept them", async (context) => {
    const analyze = spawnSync("sh", ["-c", "command -v systemd-analyze"], { encoding: "utf8" }).stdout.trim();
    if (!analyze) context.skip("systemd-analyze is not installed here");
    const dir = await fs.mkdtemp(path.join(tmp, "verify-"));
    let unit = convertUnit(EARLIER_UNIT, "/opt/cornerstone").text;
    if (spawnSync("test", ["-x", "/usr/bin/node"]).status !== 0) unit = unit.replace("/usr/bin/node", process.execPath);
    await fs.writeFile(path.join(dir, "cornerstone.service"), unit);
    await fs.copyFile("deploy/cornerstone.socket", path.join(dir, "cornerstone.socket"));
    const verified = spawnSync(
      analyze,
      ["verify", path.join(dir, "cornerstone.socket"), path.join(dir, "cornerstone.service")],
      { encoding: "utf8" },
    );
    expect({ status: verified.status, output: verified.stdout + verified.stderr }).toEqual({ status: 0, output: "" });
    await fs.writeFile(path.join(dir, "Caddyfile"), convertCaddyfile(EARLIER_CADDYFILE, 3000).text);
    const adapted = spawnSync("caddy", ["adapt", "--config", path.join(dir, "Caddyfile"), "--adapter", "caddyfile"], {
      encoding: "utf8",
      env: { ...process.env, HOME: dir },
    });
    expect(adapted.status, adapted.stderr).toBe(0);
    expect(adapted.stdout).toContain('"try_duration":30000000000');
  });
});
