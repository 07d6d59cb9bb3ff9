/**
 * The contact form's plain facts, without the validation library, so the
 * form can render before the schema (and zod) is loaded.
 */

import type { ContactSubmissionRow } from "~/db/schema";

/** Spec §9. */
export const MESSAGE_MIN_LENGTH = 10;

/** The form's fields, in the order it shows them. */
export const CONTACT_FIELDS = ["name", "email", "phone", "message"] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];
export type ContactFieldErrors = Partial<Record<ContactField, string>>;

/** Name of the honeypot field: hidden from people, tempting to bots. */
export const HONEYPOT_FIELD = "website";

/** A submission as the admin reads it. */
export type ContactSubmission = {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  message: string;
  submittedAt: string;
  /** Photos the visitor sent that are not with it ("1 photo could not be attached"); always set from a row. */
  photosNotAttached?: number;
};

/** A stored row as the admin and the notification e-mails read it. */
export function submissionFromRow(row: Omit<ContactSubmissionRow, "read_at" | "review_asked_at">): ContactSubmission {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    message: row.message,
    submittedAt: row.submitted_at,
    photosNotAttached: Number(row.photos_not_attached),
  };
}
