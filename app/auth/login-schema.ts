import { z } from "~/lib/zod";

/** The sign-in payload, checked by the login form and by POST /api/login (spec §5). */
export const loginSchema = z.object({
  username: z
    .string({ error: "Username is required" })
    .trim()
    .min(1, "Username is required")
    .max(100, "Username must be at most 100 characters"),
  password: z
    .string({ error: "Password is required" })
    .min(1, "Password is required")
    .max(1024, "Password must be at most 1024 characters"),
});

/** What GET /api/auth/user and POST /api/login answer. */
export type CurrentUser = { id: string; username: string };
