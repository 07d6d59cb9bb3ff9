import type { Readable } from "node:stream";
import type { Transaction } from "kysely";
import type { DatabaseSchema } from "~/db/schema";
import type { AppServices } from "~/services.server";
import type { EnquiryPhotoAccepted, EnquiryPhotoSize, EnquiryPhotoSummary } from "./enquiry-photos";

/**
 * CONTRACT (issue 21), agreed before the work was split between helpers.
 * Helper "enq-core" implements these; "enq-visitor" and "enq-owner" call
 * them. Keep the names and shapes; add to them if needed, and say so.
 */

type Services = Pick<AppServices, "db" | "storage" | "images" | "clock" | "logger" | "env" | "addressKey" | "limits">;

/** The outcome of one photo sent by a visitor (JS: POST /api/enquiry-photos; no-JS: one file part). */
export type PhotoAcceptOutcome =
  | ({ status: "accepted" } & EnquiryPhotoAccepted)
  /** Too large, not one of the four types, unreadable, a bomb: `message` names the file and is shown as it is (400/413/415). */
  | { status: "refused"; httpStatus: 400 | 413 | 415; message: string }
  /** ENQUIRY_PHOTOS_PER_DAY or ENQUIRY_PHOTOS_MAX_MB reached: the enquiry goes without photos (§6). */
  | { status: "capped" }
  /** The visitors' queue in the image worker is full (20): "try again in a minute" (503 + Retry-After). */
  | { status: "busy"; message: string; retryAfterSeconds: number }
  /** The per-address limit (429 + Retry-After). */
  | { status: "rate-limited"; retryAfterSeconds: number };

/**
 * Takes one photo (a stream read once, or a file already on disk from the
 * no-JS multipart parser), bounded by MAX_ENQUIRY_PHOTO_BYTES, processes it in
 * the image worker (behind the owner's uploads) into a thumbnail and a viewing
 * copy under `enquiry-photos/`, and answers a token: random, 1 hour, usable
 * only with an enquiry from the same address. The original bytes are not kept.
 */
export declare function acceptEnquiryPhoto(
  services: Services,
  photo: { fileName: string; declaredType: string; body: Readable } | { fileName: string; declaredType: string; path: string },
  clientIp: string,
): Promise<PhotoAcceptOutcome>;

/**
 * Inside submitEnquiry's transaction: ties the tokens' photos to the new
 * enquiry, in the order given. Unknown, expired, used or other-address tokens
 * are ignored (never an error: the enquiry must go through).
 * `notTaken` is true when a cap kept at least one photo out.
 */
export declare function attachEnquiryPhotos(
  trx: Transaction<DatabaseSchema>,
  services: Services,
  submissionId: string,
  tokens: readonly string[],
  clientIp: string,
): Promise<{ attached: number; notTaken: boolean }>;

/** The enquiry's photos, in order (for the inbox and the e-mail). */
export declare function listEnquiryPhotos(services: Pick<AppServices, "db">, submissionId: string): Promise<EnquiryPhotoSummary[]>;

/** Photo counts for many enquiries at once (the inbox page, the CSV export). */
export declare function countEnquiryPhotos(services: Pick<AppServices, "db">, submissionIds: readonly string[]): Promise<Map<string, number>>;

/** One kept copy, streamed from storage (JPEG); null when there is no such photo. */
export declare function openEnquiryPhoto(
  services: Pick<AppServices, "db" | "storage">,
  submissionId: string,
  n: number,
  size: EnquiryPhotoSize,
): Promise<{ body: Readable; contentType: "image/jpeg"; bytes: number } | null>;

/** Called by deleteSubmission: the photos' rows go in its transaction, their objects after it commits. */
export declare function deleteEnquiryPhotos(services: Pick<AppServices, "db" | "storage" | "logger">, submissionId: string): Promise<number>;
