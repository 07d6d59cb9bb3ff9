import { pipeline } from "node:stream/promises";
import { Router, type Response } from "express";
import { inboxQuerySchema, readUpdateSchema } from "~/contact/inbox-schemas";
import { CSV_BOM, CSV_COLUMNS, csvFileName, csvRecord, csvRow } from "~/contact/submissions-csv.server";
import {
  InvalidCursorError,
  allInboxItems,
  deleteSubmission,
  getInboxItem,
  inboxSummary,
  listInbox,
  markReviewAsked,
  setRead,
} from "~/contact/submissions.server";
import { openEnquiryPhoto } from "~/enquiry-photos/enquiry-photos.server";
import { notificationsOverview, sendTestMail } from "~/notifications/outbox-admin.server";
import { resendEnquiryNotification } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import { HttpError, badRequest, notFound } from "../http-error";
import { recordRequestActivity } from "./activity-routes";
import { parseJsonBody } from "./validation";

const NO_SUCH_ENQUIRY = "No such enquiry";

/** The inbox and notification endpoints under /api/admin; mounted behind requireAdmin. */
export function submissionRoutes(services: AppServices): Router {
  const router = Router();

  router.get("/contact-submissions", async (req, res) => {
    const parsed = inboxQuerySchema.safeParse(req.query);
    if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "Invalid query");
    const { limit, before, unread } = parsed.data;
    try {
      res.json(await listInbox(services, { limit, before, unreadOnly: unread === "1" || unread === "true" }));
    } catch (error) {
      if (error instanceof InvalidCursorError) throw badRequest(error.message);
      throw error;
    }
  });

  router.get("/contact-submissions/summary", async (_req, res) => {
    res.json(await inboxSummary(services));
  });

  router.get("/contact-submissions/export.csv", async (_req, res) => {
    await sendCsv(services, res);
  });

  router.patch("/contact-submissions/:id", async (req, res) => {
    const { read } = parseJsonBody(req, readUpdateSchema);
    const item = await setRead(services, req.params.id, read);
    if (!item) throw notFound(NO_SUCH_ENQUIRY);
    res.json(item);
  });

  router.delete("/contact-submissions/:id", async (req, res) => {
    if (!(await deleteSubmission(services, req.params.id))) throw notFound(NO_SUCH_ENQUIRY);
    await recordRequestActivity(services, req, { kind: "enquiry.deleted", outcome: "success", detail: { count: 1 } });
    res.status(204).end();
  });

  // A visitor's photo, to the signed-in owner only; never cached anywhere.
  router.get("/contact-submissions/:id/photos/:n", async (req, res) => {
    const size = req.query.size;
    if (size !== "thumb" && size !== "view") throw badRequest('size must be "thumb" or "view"');
    const n = /^[1-9]\d?$/.test(req.params.n) ? Number(req.params.n) : NaN;
    const photo = await openEnquiryPhoto(services, req.params.id, n, size);
    if (!photo) throw notFound("No such photo");
    res.status(200).set({
      "Content-Type": photo.contentType,
      "Content-Length": String(photo.bytes),
      "Cache-Control": "private, no-store",
      "Cross-Origin-Resource-Policy": "same-origin",
    });
    try {
      await pipeline(photo.body, res);
    } catch (error) {
      // The owner closed the viewer mid-photo: no server error.
      if (req.destroyed) return;
      throw error;
    }
  });

  // The owner's own mail or messages app sends the request; this only remembers that it was asked.
  router.post("/contact-submissions/:id/review-asked", async (req, res) => {
    if (!(await markReviewAsked(services, req.params.id))) throw notFound(NO_SUCH_ENQUIRY);
    res.status(204).end();
  });

  router.post("/contact-submissions/:id/resend", async (req, res) => {
    switch (await resendEnquiryNotification(services, req.params.id)) {
      case "not-found":
        throw notFound(NO_SUCH_ENQUIRY);
      case "off":
        throw new HttpError(409, "E-mail notifications are off: set SMTP_URL and MAIL_FROM, then restart the server.");
      case "busy":
        throw new HttpError(409, "This enquiry's e-mail is being sent right now. Try again in a minute.");
      case "queued":
        res.status(202).json(await getInboxItem(services, req.params.id));
    }
  });

  router.get("/notifications/status", async (_req, res) => {
    res.json(await notificationsOverview(services));
  });

  router.post("/notifications/test", async (_req, res) => {
    if (!services.mail)
      throw new HttpError(409, "E-mail notifications are off: set SMTP_URL and MAIL_FROM, then restart the server.");
    const result = await sendTestMail(services);
    if (!result.ok) throw new HttpError(502, result.message);
    res.json({ ok: true });
  });

  return router;
}

/** Streams every enquiry as CSV, a batch at a time, waiting for the client when it reads slowly. */
async function sendCsv(services: AppServices, res: Response) {
  res.status(200).set({
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${csvFileName(services.clock.now())}"`,
  });
  const write = async (chunk: string) => {
    if (res.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  };
  try {
    await write(CSV_BOM + csvRow(CSV_COLUMNS));
    for await (const batch of allInboxItems(services)) {
      if (res.destroyed) return;
      await write(batch.map(csvRecord).join(""));
    }
    res.end();
  } catch (error) {
    // Headers are out: the download can only be cut short.
    services.logger.error({ err: error }, "CSV export failed");
    res.destroy();
  }
}
