import { randomUUID } from "node:crypto";
import type { ContactSubmissionRow } from "~/db/schema";
import { nowIso } from "~/db/database.server";
import type { AppServices } from "~/services.server";
import {
  HONEYPOT_FIELD,
  contactFieldErrors,
  contactMessageSchema,
  type ContactFieldErrors,
  type ContactSubmission,
} from "./contact-schema";

export type EnquiryOutcome =
  | { status: "stored"; submission: ContactSubmission }
  /** The honeypot was filled in: answered like a success, not stored. */
  | { status: "trapped" }
  | { status: "invalid"; errors: ContactFieldErrors }
  | { status: "rate-limited"; retryAfterSeconds: number };

function toSubmission(row: ContactSubmissionRow): ContactSubmission {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    message: row.message,
    submittedAt: row.submitted_at,
  };
}

/**
 * One path for every enquiry (the JSON API and the no-JS form): validate,
 * check the honeypot and the per-IP limit, then store.
 */
export async function submitEnquiry(
  services: Pick<AppServices, "db" | "logger" | "limits">,
  input: Record<string, unknown>,
  clientIp: string,
): Promise<EnquiryOutcome> {
  const parsed = contactMessageSchema.safeParse(input);
  if (!parsed.success) return { status: "invalid", errors: contactFieldErrors(parsed.error) };

  const limit = await services.limits.contact.hit(clientIp);
  if (!limit.allowed) return { status: "rate-limited", retryAfterSeconds: limit.retryAfterSeconds };

  const honeypot = input[HONEYPOT_FIELD];
  if (typeof honeypot === "string" && honeypot.trim() !== "") {
    services.logger.info({ clientIp }, "contact honeypot filled in; enquiry dropped");
    return { status: "trapped" };
  }

  const row: ContactSubmissionRow = {
    id: randomUUID(),
    name: parsed.data.name,
    email: parsed.data.email,
    phone: parsed.data.phone ?? null,
    message: parsed.data.message,
    submitted_at: nowIso(),
  };
  await services.db.insertInto("contact_submissions").values(row).execute();
  services.logger.info({ submissionId: row.id }, "contact enquiry stored");
  return { status: "stored", submission: toSubmission(row) };
}

/** Newest first. */
export async function listSubmissions({ db }: Pick<AppServices, "db">): Promise<ContactSubmission[]> {
  const rows = await db
    .selectFrom("contact_submissions")
    .selectAll()
    .orderBy("submitted_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toSubmission);
}
