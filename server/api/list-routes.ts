import { Router } from "express";
import type { ActivityKind } from "~/activity/activity-kinds";
import { itemChangeSchema, newItemSchema, reorderItemsSchema } from "~/content/list-schema";
import { OWNER_LISTS, type OwnerList } from "~/content/lists";
import {
  ListFullError,
  ListOrderMismatchError,
  addItem,
  deleteItem,
  listAllItems,
  listShownItems,
  reorderItems,
  updateItem,
} from "~/content/lists.server";
import type { AppServices } from "~/services.server";
import { HttpError, badRequest, notFound } from "../http-error";
import { recordRequestActivity } from "./activity-routes";
import { parseJsonBody } from "./validation";

/** GET /api/<list> for every list the owner edits (app/content/lists.ts): the shown items, in order. */
export function publicListRoutes(services: AppServices): Router {
  const router = Router();
  for (const list of OWNER_LISTS) {
    router.get(`/${list.key}`, async (_req, res) => {
      res.json(await listShownItems(services, list));
    });
  }
  return router;
}

/** /api/admin/<list>: every item, add, change (hide/show), delete, reorder; mounted behind requireAdmin. */
export function adminListRoutes(services: AppServices): Router {
  const router = Router();
  for (const list of OWNER_LISTS) {
    const path = `/${list.key}`;
    const noSuchItem = () => notFound(`No such ${list.item}`);
    const log = (req: Parameters<typeof recordRequestActivity>[1], kind: ActivityKind) =>
      recordRequestActivity(services, req, { kind, outcome: "success", detail: { list: list.title, item: list.item } });
    const newItem = newItemSchema(list);
    const change = itemChangeSchema(list);

    router.get(path, async (_req, res) => {
      res.json(await listAllItems(services, list));
    });

    router.post(path, async (req, res) => {
      const item = await whenNotFull(list, () =>
        addItem(services, list, parseJsonBody(req, newItem) as Record<string, string>),
      );
      await log(req, "list.added");
      res.status(201).json(item);
    });

    // Before "/:id": a PUT there is no route anyway, but the order reads as the galleries' does.
    router.put(`${path}/reorder`, async (req, res) => {
      const { ids } = parseJsonBody(req, reorderItemsSchema);
      try {
        const items = await reorderItems(services, list, ids);
        await log(req, "list.reordered");
        res.json(items);
      } catch (error) {
        if (error instanceof ListOrderMismatchError)
          throw new HttpError(400, error.message, { errors: { ids: error.message } });
        throw error;
      }
    });

    router.patch(`${path}/:id`, async (req, res) => {
      const item = await updateItem(services, list, req.params.id, parseJsonBody(req, change));
      if (!item) throw noSuchItem();
      await log(req, "list.changed");
      res.json(item);
    });

    router.delete(`${path}/:id`, async (req, res) => {
      if (!(await deleteItem(services, list, req.params.id))) throw noSuchItem();
      await log(req, "list.deleted");
      res.status(204).end();
    });
  }
  return router;
}

async function whenNotFull<T>(list: OwnerList, add: () => Promise<T>): Promise<T> {
  try {
    return await add();
  } catch (error) {
    if (error instanceof ListFullError) throw badRequest(`${error.message}: delete a ${list.item} first`);
    throw error;
  }
}
