import type { Database } from "~/db/database.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import type { ObjectStorage } from "./storage.server";

/**
 * Image files are not deleted while a backup runs (its snapshot may name them), nor lost when a delete fails: the
 * keys wait in deferred_deletions. No window: a backup takes its lease before its snapshot, and the caller commits
 * the row's deletion before asking whether a backup runs.
 */
type Services = { db: Database; storage: ObjectStorage; logger: Logger };

/** Whether a backup holds a live lease; read here so features delete files without importing backups. */
export async function isBackupRunning(services: { db: Database; clock: Clock }): Promise<boolean> {
  const live = await services.db
    .selectFrom("backup_leases")
    .select("id")
    .where("expires_at", ">", services.clock.now().toISOString())
    .limit(1)
    .executeTakeFirst();
  return live !== undefined;
}

export async function deleteObjectsUnlessBackupRunning(
  services: Services,
  keys: readonly string[],
  clock: Clock = systemClock,
): Promise<"deleted" | "deferred"> {
  if (keys.length === 0) return "deleted";
  const defer = (later: readonly string[]) =>
    services.db
      .insertInto("deferred_deletions")
      .values(later.map((key) => ({ storage_key: key, deferred_at: clock.now().toISOString() })))
      .onConflict((oc) => oc.column("storage_key").doNothing())
      .execute();
  if (await isBackupRunning({ db: services.db, clock })) {
    await defer(keys);
    services.logger.info({ keys: keys.length }, "a backup is running: image files will be deleted after it");
    return "deferred";
  }
  const failed: string[] = [];
  for (const key of keys) {
    try {
      await services.storage.delete(key);
    } catch (error) {
      services.logger.warn({ err: error, key }, "could not delete an image file; will retry");
      failed.push(key);
    }
  }
  if (failed.length === 0) return "deleted";
  await defer(failed);
  return "deferred";
}

/** Deletes the deferred files once no backup runs, except any a row names again; how many keys were settled. */
export async function purgeDeferredDeletions(
  services: Services,
  referencedKeys: () => Promise<Set<string>>,
  clock: Clock = systemClock,
): Promise<number> {
  if (await isBackupRunning({ db: services.db, clock })) return 0;
  const deferred = await services.db.selectFrom("deferred_deletions").select("storage_key").execute();
  if (deferred.length === 0) return 0;
  const referenced = await referencedKeys();
  let settled = 0;
  for (const { storage_key: key } of deferred) {
    try {
      if (!referenced.has(key)) await services.storage.delete(key);
      await services.db.deleteFrom("deferred_deletions").where("storage_key", "=", key).execute();
      settled += 1;
    } catch (error) {
      services.logger.warn({ err: error, key }, "could not delete a deferred image file; will retry");
    }
  }
  return settled;
}
