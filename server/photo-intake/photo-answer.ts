import type { Response } from "express";
import type { PhotoAcceptOutcome } from "~/enquiry-photos/enquiry-photo-accept.server";
import type { PhotoPostFailure } from "./read-photo-post";

/** What became of a visitor's photo → its HTTP status and `{ message }` (JSON, or under the no-JS form). */

export type PhotoAnswer = { status: number; message: string; retryAfterSeconds?: number };

const RATE_LIMITED_MESSAGE = "Too many photos from this address. Please try again later or e-mail them.";

/** The disk for photos on their way is taken (photo-disk.ts): nothing of this post's photos is written. */
export const PHOTOS_BUSY = {
  status: 503,
  message: "Many photos are being sent just now. Please try again in a minute.",
  retryAfterSeconds: 60,
} as const satisfies PhotoAnswer;

export type PhotoNotTaken = Exclude<PhotoAcceptOutcome, { status: "accepted" }>;

export function answerForPhoto(outcome: PhotoNotTaken): PhotoAnswer {
  switch (outcome.status) {
    case "refused":
      return { status: outcome.httpStatus, message: outcome.message };
    case "busy":
      return { status: 503, message: outcome.message, retryAfterSeconds: outcome.retryAfterSeconds };
    case "rate-limited":
      return { status: 429, message: RATE_LIMITED_MESSAGE, retryAfterSeconds: outcome.retryAfterSeconds };
  }
}

/** An unreadable post's status; the answer closes the connection. (`left`: nobody to answer.) */
export const POST_FAILURE_STATUS: Record<Exclude<PhotoPostFailure, "left">, number> = {
  "not-multipart": 415,
  unreadable: 400,
  "too-large": 413,
};

function retryAfterHeaders(answer: Pick<PhotoAnswer, "retryAfterSeconds">): Record<string, string> {
  return answer.retryAfterSeconds === undefined ? {} : { "Retry-After": String(answer.retryAfterSeconds) };
}

/** Sends `answer` as the API's JSON `{ message }`. */
export function sendPhotoAnswer(res: Response, answer: PhotoAnswer): void {
  res.set(retryAfterHeaders(answer)).status(answer.status).json({ message: answer.message });
}
