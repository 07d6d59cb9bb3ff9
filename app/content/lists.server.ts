import { randomUUID } from "node:crypto";
import { lockForTransaction, nowIso, type Database } from "~/db/database.server";
import type { ListItemsTable } from "~/db/schema";
import type { AppServices } from "~/services.server";
import { MAX_LIST_ITEMS, fieldNamesOf, type AdminListItem, type ListItem, type OwnerList } from "./lists";

/** The items of the lists the owner edits (./lists.ts), in one table, list_items. */

type Services = Pick<AppServices, "db" | "publicContentChanged">;
type Row = Pick<ListItemsTable, "id" | "hidden" | "fields">;

export class ListOrderMismatchError extends Error {
  override name = "ListOrderMismatchError";
}
export class ListFullError extends Error {
  override name = "ListFullError";
}

/** Every change to a list's membership or order holds this lock until its transaction ends. */
const lockList = (trx: Database, list: OwnerList) => lockForTransaction(trx, `list:${list.key}`);

/** The declared fields of a stored item, each as text ("" when absent), whatever the stored JSON holds. */
function storedFields(list: OwnerList, json: string): Record<string, string> {
  let stored: unknown;
  try {
    stored = JSON.parse(json);
  } catch {
    stored = null;
  }
  const fields = (typeof stored === "object" && stored !== null ? stored : {}) as Record<string, unknown>;
  return Object.fromEntries(
    fieldNamesOf(list).map((name) => [name, typeof fields[name] === "string" ? fields[name] : ""]),
  );
}

const toItem = <L extends OwnerList>(list: L, row: Row) =>
  ({ id: row.id, ...storedFields(list, row.fields), hidden: row.hidden === 1 }) as AdminListItem<L>;

function itemsQuery(db: Database, list: OwnerList) {
  return db
    .selectFrom("list_items")
    .select(["id", "hidden", "fields"])
    .where("list", "=", list.key)
    .orderBy("position", "asc")
    .orderBy("created_at", "asc");
}

/** Every item of a list, hidden ones too, in the owner's order (the admin's view). */
export async function listAllItems<L extends OwnerList>({ db }: Pick<AppServices, "db">, list: L) {
  return (await itemsQuery(db, list).execute()).map((row) => toItem(list, row));
}

/** The items visitors see, in order, at most `limit`: without `hidden`. */
export async function listShownItems<L extends OwnerList>(
  { db }: Pick<AppServices, "db">,
  list: L,
  limit = MAX_LIST_ITEMS,
): Promise<ListItem<L>[]> {
  const rows = await itemsQuery(db, list).where("hidden", "=", 0).limit(limit).execute();
  return rows.map((row) => ({ id: row.id, ...storedFields(list, row.fields) }) as ListItem<L>);
}

/**
 * For a public page: the items it shows (as many as the list's `shownOn` says), never a crashed
 * page; a failed read shows none and `onFallback` hears of it (pages pass `context.markDegraded`).
 */
export async function itemsShownOn<L extends OwnerList>(
  services: Pick<AppServices, "db" | "logger">,
  list: L,
  page: keyof L["shownOn"] & string,
  options: { onFallback?: () => void } = {},
): Promise<ListItem<L>[]> {
  try {
    return await listShownItems(services, list, list.shownOn[page]);
  } catch (error) {
    services.logger.error({ err: error, list: list.key }, "reading a list failed; showing none of it");
    options.onFallback?.();
    return [];
  }
}

/** Adds an item at the end of its list, under the list's lock (positions stay 0..n-1). */
export async function addItem<L extends OwnerList>(
  services: Services,
  list: L,
  fields: Record<string, string>,
): Promise<AdminListItem<L>> {
  const now = nowIso();
  const row = await services.db.transaction().execute(async (trx) => {
    await lockList(trx, list);
    const { count } = await trx
      .selectFrom("list_items")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("list", "=", list.key)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_LIST_ITEMS) throw new ListFullError(`A list holds at most ${MAX_LIST_ITEMS} items`);
    const values = {
      id: randomUUID(),
      list: list.key,
      position: Number(count),
      hidden: 0,
      fields: JSON.stringify(fields),
      created_at: now,
      updated_at: now,
    };
    await trx.insertInto("list_items").values(values).execute();
    return values;
  });
  services.publicContentChanged();
  return toItem(list, row);
}

/** Changes some fields and/or `hidden`; null when the list has no such item. */
export async function updateItem<L extends OwnerList>(
  services: Services,
  list: L,
  id: string,
  change: Record<string, string | boolean | undefined>,
): Promise<AdminListItem<L> | null> {
  const { hidden, ...fields } = change;
  const row = await services.db.transaction().execute(async (trx) => {
    await lockList(trx, list);
    const current = await trx
      .selectFrom("list_items")
      .select(["id", "hidden", "fields"])
      .where("id", "=", id)
      .where("list", "=", list.key)
      .executeTakeFirst();
    if (!current) return null;
    const changed = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const next = {
      id,
      hidden: hidden === undefined ? current.hidden : hidden ? 1 : 0,
      fields: JSON.stringify({ ...storedFields(list, current.fields), ...changed }),
    };
    await trx
      .updateTable("list_items")
      .set({ hidden: next.hidden, fields: next.fields, updated_at: nowIso() })
      .where("id", "=", id)
      .execute();
    return next;
  });
  if (!row) return null;
  services.publicContentChanged();
  return toItem(list, row);
}

/** Deletes an item and closes the gap in its list's order, in one transaction. False when there is none. */
export async function deleteItem(services: Services, list: OwnerList, id: string): Promise<boolean> {
  const deleted = await services.db.transaction().execute(async (trx) => {
    await lockList(trx, list);
    const found = await trx
      .selectFrom("list_items")
      .select("position")
      .where("id", "=", id)
      .where("list", "=", list.key)
      .executeTakeFirst();
    if (!found) return false;
    await trx.deleteFrom("list_items").where("id", "=", id).execute();
    await trx
      .updateTable("list_items")
      .set((eb) => ({ position: eb("position", "-", 1) }))
      .where("list", "=", list.key)
      .where("position", ">", found.position)
      .execute();
    return true;
  });
  if (deleted) services.publicContentChanged();
  return deleted;
}

/**
 * Puts a list in the given order, in one transaction under its lock: `ids` must be exactly the
 * list's items, each once (checked under the lock), or nothing changes.
 */
export async function reorderItems<L extends OwnerList>(
  services: Services,
  list: L,
  ids: string[],
): Promise<AdminListItem<L>[]> {
  const items = await services.db.transaction().execute(async (trx) => {
    await lockList(trx, list);
    const current = new Set((await itemsQuery(trx, list).execute()).map((row) => row.id));
    const requested = new Set(ids);
    if (requested.size !== ids.length || requested.size !== current.size || !ids.every((id) => current.has(id))) {
      throw new ListOrderMismatchError(`ids must list every ${list.item} exactly once`);
    }
    const now = nowIso();
    for (const [position, id] of ids.entries()) {
      await trx.updateTable("list_items").set({ position, updated_at: now }).where("id", "=", id).execute();
    }
    return (await itemsQuery(trx, list).execute()).map((row) => toItem(list, row));
  });
  services.publicContentChanged();
  return items;
}
