import busboy from "busboy";
import type { Request, Response } from "express";
import { ENQUIRY_PHOTO_FIELD, MAX_ENQUIRY_PHOTO_BYTES } from "~/enquiry-photos/enquiry-photos";
import { acceptEnquiryPhoto, type PhotoAcceptOutcome } from "~/enquiry-photos/enquiry-photos.server";
import type { AppServices } from "~/services.server";

/**
 * POST /api/enquiry-photos (issue 21 §2): one photo per request, multipart,
 * in the field `photos`. The file streams through busboy into a bounded temp
 * file (never whole in memory) and on to the image worker. Registered ahead
 * of the JSON parser; the API's cross-site check applies as to every post.
 */

/**
 * A refused photo's body is read to its end (and thrown away) so the browser sees the answer, up to
 * this much; past it the answer goes out and the connection closes.
 */
const DRAIN_LIMIT_BYTES = 3 * MAX_ENQUIRY_PHOTO_BYTES;
const NO_PHOTO_MESSAGE = `Send one photo, as multipart/form-data in the field "${ENQUIRY_PHOTO_FIELD}".`;
const RATE_LIMITED_MESSAGE = "Too many photos from this address. Please try again later or e-mail them.";

type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

export function answerFor(outcome: PhotoAcceptOutcome): Answer {
  switch (outcome.status) {
    case "accepted":
      return { status: 201, body: { token: outcome.token, name: outcome.name } };
    case "capped":
      // Taken as sent, without the photo: the token makes the enquiry's answer say so (photos.notTaken).
      return { status: 201, body: { token: outcome.token, name: outcome.name, capped: true } };
    case "refused":
      return { status: outcome.httpStatus, body: { message: outcome.message } };
    case "busy":
      return { status: 503, body: { message: outcome.message }, headers: { "Retry-After": String(outcome.retryAfterSeconds) } };
    case "rate-limited":
      return { status: 429, body: { message: RATE_LIMITED_MESSAGE }, headers: { "Retry-After": String(outcome.retryAfterSeconds) } };
  }
}

export function receiveEnquiryPhoto(services: AppServices, req: Request, res: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    let answered = false;
    const reply = (answer: Answer, close = false) => {
      if (answered || res.headersSent) return;
      answered = true;
      if (answer.headers) res.set(answer.headers);
      if (close) res.set("Connection", "close");
      res.status(answer.status).json(answer.body);
      resolve();
    };

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // One more byte than allowed, so the bounded read sees the excess and names the file.
        limits: { files: 1, fileSize: MAX_ENQUIRY_PHOTO_BYTES + 1, fields: 10, fieldSize: 1024, parts: 12 },
      });
    } catch {
      reply({ status: 415, body: { message: NO_PHOTO_MESSAGE } });
      req.resume();
      return;
    }

    let outcome: Promise<PhotoAcceptOutcome> | null = null;
    // The photo's own answer, once known (a refusal comes before the rest of the body).
    let early: Answer | null = null;
    let received = 0;
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_LIMIT_BYTES) {
        reply(early ?? { status: 413, body: { message: "Send one photo of at most 15 MB." } }, true);
        req.unpipe(parser);
        req.destroy();
      }
    });

    parser.on("file", (field, file, info) => {
      if (field !== ENQUIRY_PHOTO_FIELD || outcome) {
        file.resume();
        return;
      }
      outcome = acceptEnquiryPhoto(services, { fileName: info.filename ?? "", declaredType: info.mimeType, body: file }, req.ip ?? "unknown");
      outcome.then(
        (result) => void (early = answerFor(result)),
        // A failure is answered at "close"; never an unhandled rejection.
        () => {},
      );
    });
    parser.on("error", () => reply({ status: 400, body: { message: NO_PHOTO_MESSAGE } }, true));
    // The whole body has arrived: answer with what the photo came to.
    parser.on("close", () => {
      if (!outcome) return reply({ status: 400, body: { message: NO_PHOTO_MESSAGE } });
      outcome.then(
        (result) => reply(answerFor(result)),
        (error: unknown) => {
          services.logger.error({ err: error }, "an enquiry photo upload failed");
          reply({ status: 500, body: { message: "Something went wrong on our side. Please try again." } });
        },
      );
    });
    req.once("close", () => {
      if (req.complete) return;
      // Cut off (or cut off by us): the photo's stream fails, its temp file is deleted.
      parser.destroy(new Error("The upload was cut off"));
      resolve();
    });
    req.pipe(parser);
  });
}
