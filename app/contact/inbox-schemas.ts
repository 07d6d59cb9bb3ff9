import { z } from "~/lib/zod";
import { INBOX_MAX_PAGE_SIZE, INBOX_PAGE_SIZE } from "./inbox";

/** GET /api/admin/contact-submissions?limit=50&before={cursor}&unread=1 */
export const inboxQuerySchema = z.object({
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${INBOX_MAX_PAGE_SIZE}` })
    .int(`limit must be a whole number from 1 to ${INBOX_MAX_PAGE_SIZE}`)
    .min(1, `limit must be a whole number from 1 to ${INBOX_MAX_PAGE_SIZE}`)
    .max(INBOX_MAX_PAGE_SIZE, `limit must be a whole number from 1 to ${INBOX_MAX_PAGE_SIZE}`)
    .default(INBOX_PAGE_SIZE),
  before: z
    .string({ error: "before must be a cursor from this list" })
    .max(300, "before must be a cursor from this list")
    .optional(),
  unread: z.enum(["1", "0", "true", "false"], { error: "unread must be 1 or 0" }).optional(),
});

/** PATCH /api/admin/contact-submissions/:id */
export const readUpdateSchema = z.object({
  read: z.boolean({ error: "read must be true or false" }),
});
