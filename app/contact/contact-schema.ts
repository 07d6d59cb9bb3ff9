import { firstErrorPerField, z } from "~/lib/zod";
import { CONTACT_FIELDS, MESSAGE_MIN_LENGTH, type ContactFieldErrors } from "~/notifications/enquiry-fields";

export {
  HONEYPOT_FIELD,
  MESSAGE_MIN_LENGTH,
  type ContactField,
  type ContactFieldErrors,
  type ContactSubmission,
} from "~/notifications/enquiry-fields";

/** One schema, three callers: the browser's form, the no-JS form action and POST /api/contact. */
export const contactMessageSchema = z.object({
  name: z
    .string({ error: "Name is required" })
    .trim()
    .min(1, "Name is required")
    .max(200, "Name must be at most 200 characters"),
  email: z
    .string({ error: "Valid email is required" })
    .trim()
    .max(320, "Email must be at most 320 characters")
    .pipe(z.email({ error: "Valid email is required" })),
  phone: z
    .string({ error: "Phone must be text" })
    .trim()
    .max(50, "Phone must be at most 50 characters")
    .nullish()
    // Phone is optional: an empty field means none.
    .transform((phone) => phone || undefined),
  message: z
    .string({ error: `Message must be at least ${MESSAGE_MIN_LENGTH} characters` })
    .trim()
    .min(MESSAGE_MIN_LENGTH, `Message must be at least ${MESSAGE_MIN_LENGTH} characters`)
    .max(5000, "Message must be at most 5000 characters"),
});

export type ContactMessage = z.infer<typeof contactMessageSchema>;

/** First message per field, in the shape the form and the API share. */
export function contactFieldErrors(error: z.ZodError): ContactFieldErrors {
  return firstErrorPerField(error, CONTACT_FIELDS);
}
