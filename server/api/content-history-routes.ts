import { Router, type ErrorRequestHandler, type Response } from "express";
import {
  ContentWriteConflictError,
  listContentHistory,
  resetContent,
  restoreContentVersion,
} from "~/content/content.server";
import { getSection, isSectionKey, type SectionKey } from "~/content/sections";
import type { AppServices } from "~/services.server";
import { HttpError, notFound } from "../http-error";
import { watchContactEmail } from "./contact-email-change";
import { recordRequestActivity } from "./activity-routes";

function sectionKeyOf(key: string): SectionKey {
  if (!isSectionKey(key)) throw notFound(`Unknown content section: ${key}`);
  return key;
}

const savedBy = (res: Response) => res.locals.user?.username ?? null;

/** Earlier versions of each text section (decision 0030), under /api/admin. */
export function contentHistoryRoutes(services: AppServices): Router {
  const router = Router();

  router.get("/content/:sectionKey/history", async (req, res) => {
    res.json(await listContentHistory(services, sectionKeyOf(req.params.sectionKey)));
  });

  router.post("/content/:sectionKey/history/:versionId/restore", async (req, res) => {
    const key = sectionKeyOf(req.params.sectionKey);
    const entry = await watchContactEmail(services, req, key, () =>
      restoreContentVersion(services, key, req.params.versionId, { savedBy: savedBy(res) }),
    );
    if (!entry) throw notFound("No such version of this section");
    await recordRequestActivity(services, req, {
      kind: "text.restored",
      outcome: "success",
      detail: { section: getSection(key).title },
    });
    res.json(entry);
  });

  router.delete("/content/:sectionKey", async (req, res) => {
    const key = sectionKeyOf(req.params.sectionKey);
    await watchContactEmail(services, req, key, () => resetContent(services, key, { savedBy: savedBy(res) }));
    await recordRequestActivity(services, req, {
      kind: "text.reset",
      outcome: "success",
      detail: { section: getSection(key).title },
    });
    res.status(204).end();
  });

  router.use(conflictAsHttpError);
  return router;
}

/** A write that lost every compare-and-set round to other saves: the client may try again. */
const conflictAsHttpError: ErrorRequestHandler = (error, _req, _res, next) => {
  if (error instanceof ContentWriteConflictError) {
    next(new HttpError(409, "This text was being changed at the same moment. Please try again."));
    return;
  }
  next(error);
};
