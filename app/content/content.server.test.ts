import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { createLogger } from "~/lib/logger.server";
import { readContent, saveContent } from "./content.server";
import { defaultContentFor } from "./sections";

let dir: string;
let db: Database;
let logged: string[];
const logger = () =>
  createLogger({
    level: "info",
    destination: new Writable({
      write(chunk, _e, cb) {
        logged.push(String(chunk));
        cb();
      },
    }),
  });

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-content-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
  logged = [];
});
afterEach(async () => {
  await db.destroy().catch(() => {});
  await fs.rm(dir, { recursive: true, force: true });
});

describe("readContent", () => {
  it("mixes stored text with defaults", async () => {
    await saveContent({ db, publicContentChanged: () => {} }, "hero.title", "Stored title");
    const content = await readContent({ db, logger: logger() }, ["hero.title", "hero.subtitle"]);
    expect(content).toEqual({ "hero.title": "Stored title", "hero.subtitle": defaultContentFor("hero.subtitle") });
  });

  it("falls back silently to the defaults when the database cannot be read, and logs it", async () => {
    await db.destroy();
    const content = await readContent({ db, logger: logger() }, ["hero.title", "footer.description"]);
    expect(content).toEqual({
      "hero.title": defaultContentFor("hero.title"),
      "footer.description": defaultContentFor("footer.description"),
    });
    expect(logged.join("")).toMatch(/reading content failed/);
  });
});

describe("migrations", () => {
  it("are safe to run twice", async () => {
    expect(await migrateToLatest(db)).toEqual([]);
    const again = openDatabase(dir);
    expect(await migrateToLatest(again)).toEqual([]);
    await again.destroy();
  });

  it("put the database in WAL mode", async () => {
    const { sql } = await import("kysely");
    const result = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    expect(result.rows[0]?.journal_mode).toBe("wal");
  });
});
