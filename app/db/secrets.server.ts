import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Database } from "~/db/database.server";

/** A secret from the environment, or generated once and kept in DATA_DIR (mode 600). */
export function loadOrCreateSecret(dataDir: string, name: string, fromEnv?: string): string {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, "secrets", `${name}.key`);
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return existing;
  } catch {
    // Not there yet: create it below.
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString("hex");
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** A secret from the environment, or the database's (the first instance to ask creates it; the others find it). */
export async function loadOrCreateDatabaseSecret(db: Database, name: string, fromEnv?: string): Promise<string> {
  if (fromEnv) return fromEnv;
  await db
    .insertInto("secrets")
    .values({ name, value: randomBytes(32).toString("hex"), created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await db.selectFrom("secrets").select("value").where("name", "=", name).executeTakeFirstOrThrow();
  return row.value;
}
