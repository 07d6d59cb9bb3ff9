// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// V8 grows its heap lazily on a large machine; a 1 GB server needs a ceiling, set
// the same way by `npm run serve` and by the systemd unit.
describe("the production heap ceiling", () => {
  it("is 192 MB in npm run serve and in deploy/cornerstone.service", () => {
    const serve = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts
      .serve;
    expect(serve).toMatch(/\bnode --max-old-space-size=192 scripts\/serve\.mjs$/);
    const unit = readFileSync("deploy/cornerstone.service", "utf8");
    expect(unit).toMatch(
      /^ExecStart=\/usr\/bin\/node --max-old-space-size=192 \/opt\/cornerstone\/current\/build\/server\/index\.js$/m,
    );
  });
});
