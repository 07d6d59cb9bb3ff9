import { z } from "~/lib/zod";

export const MAX_CONTENT_LENGTH = 20_000;

/** Body of PUT /api/admin/content/:sectionKey. */
export const contentUpdateSchema = z.object({
  content: z
    .string({ error: "content must be a string" })
    .max(MAX_CONTENT_LENGTH, `content must be at most ${MAX_CONTENT_LENGTH} characters`),
});
export type ContentUpdate = z.infer<typeof contentUpdateSchema>;
