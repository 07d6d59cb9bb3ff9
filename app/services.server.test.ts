import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const APP = path.resolve(import.meta.dirname);
const SERVICES = path.join(APP, "services.server.ts");

/** The project files a module imports (type-only imports too), resolved as the `~/` alias and relative paths are. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
  return importedFiles.flatMap(({ fileName: spec }) => {
    const base = spec.startsWith("~/")
      ? path.join(APP, spec.slice(2))
      : spec.startsWith(".")
        ? path.resolve(path.dirname(file), spec)
        : null; // a package
    if (!base) return [];
    const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")];
    const found = candidates.find((candidate) => fs.statSync(candidate, { throwIfNoEntry: false })?.isFile());
    return found ? [found] : [];
  });
}

describe("app/services.server.ts", () => {
  it("is not imported back by any module it builds on (no import circle)", () => {
    const seen = new Set<string>();
    const importingBack: string[] = [];
    const queue = importsOf(SERVICES);
    while (queue.length) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const imports = importsOf(file);
      if (imports.includes(SERVICES)) importingBack.push(path.relative(APP, file));
      queue.push(...imports);
    }
    expect(seen.size).toBeGreaterThan(10);
    expect(importingBack).toEqual([]);
  });
});
