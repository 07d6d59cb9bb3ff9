import { Router } from "express";
import { analyticsReport } from "~/analytics/analytics-report.server";
import type { AppServices } from "~/services.server";

/** The dashboard's visits and enquiries, under /api/admin (signed in). */
export function analyticsRoutes(services: AppServices): Router {
  const router = Router();
  router.get("/analytics", async (_req, res) => {
    res.json(await analyticsReport(services));
  });
  return router;
}
