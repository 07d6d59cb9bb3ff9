import { Router, type Request } from "express";
import type { ActivityKind } from "~/activity/activity-kinds";
import { itemChangeSchema, newItemSchema, reorderItemsSchema } from "~/content/list-schema";
import { OWNER_LISTS } from "~/content/lists";
import {
  ListRefusal,
  addItem,
  deleteItem,
  listAllItems,
  listShownItems,
  reorderItems,
  updateItem,
} from "~/content/lists.server";
import type { AppServices } from "~/services.server";
import { HttpError, notFound } from "../http-error";
import { recordRequestActivity } from "./activity-routes";
import { parseJsonBody } from "./validation";

/** GET /api/<list> for every list the owner edits (app/content/lists.ts): the shown items, in order. */
export function publicListRoutes(services: AppServices): Router {
  const router = Router();
  for (const list of OWNER_LISTS)
    router.get(`/${list.key}`, async (_req, res) => void res.json(await listShownItems(services, list)));
  return router;
}

/** /api/admin/<list>: every item, add, change (hide/show), delete, reorder; mounted behind requireAdmin. */
export function adminListRoutes(services: AppServices): Router {
  const router = Router();
  for (const list of OWNER_LISTS) {
    const path = `/${list.key}`;
    const [newItem, change] = [newItemSchema(list), itemChangeSchema(list)];
    /** Runs a write; a refusal is a 400 on its field, a missing item a 404; a done one is logged. */
    const done = async <T>(req: Request, kind: ActivityKind, run: () => Promise<T>): Promise<T> => {
      let result: T;
      try {
        result = await run();
      } catch (error) {
        if (!(error instanceof ListRefusal)) throw error;
        throw new HttpError(400, error.message, { errors: { [error.field]: error.message } });
      }
      if (result === null || result === false) throw notFound(`No such ${list.item}`);
      await recordRequestActivity(services, req, {
        kind,
        outcome: "success",
        detail: { list: list.title, item: list.item },
      });
      return result;
    };

    router.get(path, async (_req, res) => void res.json(await listAllItems(services, list)));
    router.post(path, async (req, res) => {
      const fields = parseJsonBody(req, newItem) as Record<string, string>;
      res.status(201).json(await done(req, "list.added", () => addItem(services, list, fields)));
    });
    router.put(`${path}/reorder`, async (req, res) => {
      const { ids } = parseJsonBody(req, reorderItemsSchema);
      res.json(await done(req, "list.reordered", () => reorderItems(services, list, ids)));
    });
    router.patch(`${path}/:id`, async (req, res) => {
      const fields = parseJsonBody(req, change);
      res.json(await done(req, "list.changed", () => updateItem(services, list, req.params.id, fields)));
    });
    router.delete(`${path}/:id`, async (req, res) => {
      await done(req, "list.deleted", () => deleteItem(services, list, req.params.id));
      res.status(204).end();
    });
  }
  return router;
}
