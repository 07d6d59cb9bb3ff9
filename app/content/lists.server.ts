import { randomUUID } from "node:crypto";
import { lockForTransaction, nowIso, type Database } from "~/db/database.server";
import type { AppServices } from "~/services.server";
import { MAX_LIST_ITEMS, fieldNamesOf, type AdminListItem, type ListItem, type OwnerList } from "./lists";

/** The items of the lists the owner edits (./lists.ts), all in one table, list_items. */

type Services = Pick<AppServices, "db" | "publicContentChanged">;

/** A write refused for what it asked (the API answers 400): `field` is the body's field it is about. */
export class ListRefusal extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** The declared fields of a stored item, each as text ("" when absent), whatever the stored JSON holds. */
function storedFields(list: OwnerList, json: string): Record<string, string> {
  let stored: Record<string, unknown> = {};
  try {
    stored = Object(JSON.parse(json));
  } catch {
    // A damaged row reads as empty fields.
  }
  return Object.fromEntries(
    fieldNamesOf(list).map((name) => [name, typeof stored[name] === "string" ? stored[name] : ""]),
  );
}

type Row = { id: string; hidden: number; fields: string };
const toItem = <L extends OwnerList>(list: L, row: Row) =>
  ({ id: row.id, ...storedFields(list, row.fields), hidden: row.hidden === 1 }) as AdminListItem<L>;

const rowsOf = (db: Database, list: OwnerList) =>
  db
    .selectFrom("list_items")
    .select(["id", "hidden", "fields"])
    .where("list", "=", list.key)
    .orderBy("position")
    .orderBy("created_at");

/** Every item, hidden ones too, in the owner's order (the admin's view). */
export async function listAllItems<L extends OwnerList>({ db }: Pick<AppServices, "db">, list: L) {
  return (await rowsOf(db, list).execute()).map((row) => toItem(list, row));
}

/** The items visitors see, in order, at most `limit`. */
export async function listShownItems<L extends OwnerList>({ db }: Pick<AppServices, "db">, list: L, limit?: number) {
  const rows = await rowsOf(db, list)
    .where("hidden", "=", 0)
    .limit(limit ?? MAX_LIST_ITEMS)
    .execute();
  return rows.map((row) => ({ id: row.id, ...storedFields(list, row.fields) }) as ListItem<L>);
}

/** For a public page, as many as `shownOn` says; a failed read shows none, and `onFallback` hears of it. */
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

/** One write to a list, in one transaction holding the list's lock; the page cache is emptied after it commits. */
async function write<T>(services: Services, list: OwnerList, change: (trx: Database) => Promise<T>): Promise<T> {
  const result = await services.db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, `list:${list.key}`);
    return change(trx);
  });
  if (result !== null && result !== false) services.publicContentChanged();
  return result;
}

/** Adds an item at the end of its list. */
export function addItem<L extends OwnerList>(services: Services, list: L, fields: Record<string, string>) {
  return write(services, list, async (trx) => {
    const count = (await rowsOf(trx, list).execute()).length;
    if (count >= MAX_LIST_ITEMS) throw new ListRefusal(`A list holds at most ${MAX_LIST_ITEMS} items`, "body");
    const now = nowIso();
    const row = { id: randomUUID(), hidden: 0, fields: JSON.stringify(fields) };
    await trx
      .insertInto("list_items")
      .values({ ...row, list: list.key, position: count, created_at: now, updated_at: now })
      .execute();
    return toItem(list, row);
  });
}

/** Changes some fields and/or `hidden`; null when the list has no such item. */
export function updateItem<L extends OwnerList>(
  services: Services,
  list: L,
  id: string,
  { hidden, ...fields }: Record<string, string | boolean | undefined>,
) {
  return write(services, list, async (trx) => {
    const current = await rowsOf(trx, list).where("id", "=", id).executeTakeFirst();
    if (!current) return null;
    const changed = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const row = {
      id,
      hidden: hidden === undefined ? current.hidden : Number(hidden),
      fields: JSON.stringify({ ...storedFields(list, current.fields), ...changed }),
    };
    await trx
      .updateTable("list_items")
      .set({ hidden: row.hidden, fields: row.fields, updated_at: nowIso() })
      .where("id", "=", id)
      .execute();
    return toItem(list, row);
  });
}

/** Deletes an item and closes the gap in the order. False when there is none. */
export function deleteItem(services: Services, list: OwnerList, id: string) {
  return write(services, list, async (trx) => {
    const ids = (await rowsOf(trx, list).execute()).map((row) => row.id).filter((other) => other !== id);
    const { numDeletedRows } = await trx
      .deleteFrom("list_items")
      .where("id", "=", id)
      .where("list", "=", list.key)
      .executeTakeFirst();
    if (Number(numDeletedRows) === 0) return false;
    await setOrder(trx, ids);
    return true;
  });
}

const setOrder = async (trx: Database, ids: string[]) => {
  const now = nowIso();
  for (const [position, id] of ids.entries()) {
    await trx.updateTable("list_items").set({ position, updated_at: now }).where("id", "=", id).execute();
  }
};

/** Puts the list in this order: `ids` must be exactly its items, each once (checked under the lock), or nothing changes. */
export function reorderItems<L extends OwnerList>(services: Services, list: L, ids: string[]) {
  return write(services, list, async (trx) => {
    const current = new Set((await rowsOf(trx, list).execute()).map((row) => row.id));
    if (new Set(ids).size !== ids.length || ids.length !== current.size || !ids.every((id) => current.has(id))) {
      throw new ListRefusal(`ids must list every ${list.item} exactly once`, "ids");
    }
    await setOrder(trx, ids);
    return (await rowsOf(trx, list).execute()).map((row) => toItem(list, row));
  });
}
