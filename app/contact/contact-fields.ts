/**
 * The contact form's plain facts, without the validation library, so the
 * form can render before the schema (and zod) is loaded.
 */

/** Spec §9. */
export const MESSAGE_MIN_LENGTH = 10;

export type ContactField = "name" | "email" | "phone" | "message";
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
};
