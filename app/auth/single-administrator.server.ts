import type { Kysely } from "kysely";

/** Exactly one administrator (decision 0045), for databases made before migration 0008; runs at any schema. */

/** Start-up refused: the database holds more than one user. The message names them and the fix. */
export class SeveralAdministratorsError extends Error {
  override name = "SeveralAdministratorsError";
}

type UserName = { id: string; username: string };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- runs before migrations, at any schema
type AnyDatabase = Kysely<any>;

/** Every user, oldest first; none when the users table does not exist yet (a new database). */
async function usersOf(db: AnyDatabase): Promise<UserName[]> {
  const tables = await db.introspection.getTables();
  if (!tables.some((table) => table.name === "users")) return [];
  return db.selectFrom("users").select(["id", "username"]).orderBy("created_at").orderBy("id").execute();
}

/** Usernames quoted, so one holding a comma or a line break cannot blur the list. */
const listed = (users: UserName[]) => users.map((user) => JSON.stringify(user.username)).join(", ");

/** Throws SeveralAdministratorsError when the database holds more than one user. */
export async function assertSingleAdministrator(db: AnyDatabase): Promise<void> {
  const users = await usersOf(db);
  if (users.length <= 1) return;
  throw new SeveralAdministratorsError(
    `The database holds ${users.length} users (${listed(users)}), but this site has exactly one administrator: ` +
      "the others may have been planted (by a crafted backup, say), and the server will not start with them.\n" +
      "Choose the one to keep: npm run admin:password -- --keep NAME\n" +
      "It sets NAME's password, deletes the other users and their sessions, and clears every sign-in lock-out.",
  );
}

/** `--keep NAME`: deletes every other user (and their sessions); throws, changing nothing, without NAME. */
export async function keepOnlyAdministrator(db: AnyDatabase, username: string): Promise<string[]> {
  const users = await usersOf(db);
  const kept = users.find((user) => user.username === username);
  if (!kept) {
    const present = users.length ? `The users are: ${listed(users)}.` : "There are no users yet.";
    throw new Error(`There is no user ${JSON.stringify(username)} to keep. ${present} Nothing was changed.`);
  }
  await db.deleteFrom("users").where("id", "!=", kept.id).execute();
  return users.filter((user) => user !== kept).map((user) => user.username);
}
