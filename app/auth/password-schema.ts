import { z } from "~/lib/zod";

/** One rule for every new admin password: ADMIN_PASSWORD, `npm run admin:password` and the dashboard. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export const newPasswordSchema = z
  .string({ error: "New password is required" })
  .min(PASSWORD_MIN_LENGTH, `The new password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `The new password must be at most ${PASSWORD_MAX_LENGTH} characters`);

/** POST /api/admin/password, checked by the dashboard's form and by the server. */
export const changePasswordSchema = z
  .object({
    currentPassword: z
      .string({ error: "Current password is required" })
      .min(1, "Current password is required")
      .max(PASSWORD_MAX_LENGTH, `The current password must be at most ${PASSWORD_MAX_LENGTH} characters`),
    newPassword: newPasswordSchema,
    confirmPassword: z.string({ error: "Type the new password again" }).min(1, "Type the new password again"),
  })
  .refine((input) => input.newPassword === input.confirmPassword, {
    message: "The two new passwords differ",
    path: ["confirmPassword"],
  });
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;
