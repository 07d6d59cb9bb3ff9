// npm run migrations [-- --json] [--env-file /etc/cornerstone/cornerstone.env]
// Which migrations the database has had, and which this code knows, without applying any: whether a
// release may run on the database as it is (an older build refuses one a newer build migrated).
// `npm run update` reads it (--json) to tell whether a new release changed the database.
import { existsSync } from "node:fs";
import path from "node:path";
import {
  appliedMigrations,
  databaseTargetFor,
  describeDatabaseUrl,
  knownMigrations,
  openDatabaseAt,
} from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { wrongUserProblem } from "~/lib/data-dir-lock.server";
import { applyEnvFileArgument } from "./lib/env-file";

async function main() {
  const args = applyEnvFileArgument(process.argv.slice(2));
  const env = parseEnv();
  const target = databaseTargetFor(env);
  const known = knownMigrations();
  let applied: string[] = [];
  // A SQLite file that is not there yet has had none; reading must not create it.
  if (target.kind === "postgres" || existsSync(path.join(target.dataDir, "site.db"))) {
    const wrongUser = wrongUserProblem(env.DATA_DIR);
    if (wrongUser) throw new Error(wrongUser);
    const db = openDatabaseAt(target);
    try {
      applied = await appliedMigrations(db);
    } finally {
      await db.destroy();
    }
  }
  const unknown = applied.filter((name) => !known.includes(name));
  if (args.includes("--json")) {
    console.log(JSON.stringify({ applied, known, unknown }));
    return;
  }
  const where =
    target.kind === "postgres" ? `PostgreSQL at ${describeDatabaseUrl(target.url)}` : `SQLite in ${target.dataDir}`;
  console.log(
    `The database (${where}) has had ${applied.length} migration(s); the newest is ${applied.at(-1) ?? "none"}.`,
  );
  console.log(`This code knows ${known.length}; the newest is ${known.at(-1)}.`);
  if (unknown.length)
    console.log(`A newer version ran ${unknown.join(", ")}: this code would refuse to start on this database.`);
}

main().catch((error: Error) => {
  console.error(`Could not read the database's migrations: ${error.message}`);
  process.exit(1);
});
