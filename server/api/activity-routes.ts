import { Router, type Request } from "express";
import {
  readActivity,
  recordActivitySafely,
  type ActivityClient,
  type ActivityEvent,
} from "~/activity/activity-log.server";
import type { AppServices } from "~/services.server";
import { badRequest } from "../http-error";

/** The browser and address of a request, for the security log (only a prefix and a keyed hash are stored). */
function activityClientOf(req: Request): ActivityClient {
  return { userAgent: req.get("user-agent") ?? null, address: req.ip ?? null };
}

/** Records an event of this request in the security log; never fails the request (a failure is logged). */
export function recordRequestActivity(
  services: AppServices,
  req: Request,
  event: Omit<ActivityEvent, "client">,
): Promise<void> {
  return recordActivitySafely(services, { ...event, client: activityClientOf(req) });
}

/** 10,000 records at 50 a page. */
const MAX_PAGE = 200;

/** GET /api/admin/activity?page=&filter=security: the security log, newest first (decision 0054). */
export function activityRoutes(services: AppServices): Router {
  const router = Router();
  router.get("/activity", async (req, res) => {
    const { page: pageText = "1", filter = "all" } = req.query;
    const page = typeof pageText === "string" && /^\d{1,3}$/.test(pageText) ? Number(pageText) : NaN;
    if (!(page >= 1 && page <= MAX_PAGE)) throw badRequest(`page must be a whole number from 1 to ${MAX_PAGE}`);
    if (filter !== "all" && filter !== "security") throw badRequest('filter must be "security" or left out');
    res.json(await readActivity(services, { page, securityOnly: filter === "security" }));
  });
  return router;
}
