import { z } from "~/lib/zod";

/** Passkeys and two-step, shared with the dashboard; here only a passkey answer's outer shape and size. */
const credentialJson = z.object({
  id: z.string().min(1).max(1400),
  rawId: z.string().min(1).max(1400),
  type: z.literal("public-key"),
  response: z.record(z.string(), z.unknown()),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(40).optional(),
});

export const passkeyAnswerSchema = z.object({ response: credentialJson });

export const PASSKEY_NAME_MAX_LENGTH = 60;
export const newPasskeySchema = z.object({
  response: credentialJson,
  name: z
    .string()
    .trim()
    .max(PASSKEY_NAME_MAX_LENGTH, `The name must be at most ${PASSKEY_NAME_MAX_LENGTH} characters`)
    .optional(),
});

/** Proof that it is the owner, for a change to the sign-in methods: the current password, or a passkey. */
export const ownerConfirmationSchema = z.object({
  currentPassword: z.string().max(1024, "The current password must be at most 1024 characters").optional(),
  passkey: credentialJson.optional(),
});
export type OwnerConfirmation = z.infer<typeof ownerConfirmationSchema>;

/** "Sign out everywhere": optionally removing every passkey but the one this session signed in with (then with proof). */
export const signOutEverywhereSchema = ownerConfirmationSchema.extend({
  removeOtherPasskeys: z.boolean({ error: "removeOtherPasskeys is true or false" }).optional(),
});

export const authenticationCodeSchema = z.object({
  code: z
    .string({ error: "Enter the 6-digit code from your app, or a recovery code" })
    .trim()
    .min(1, "Enter the 6-digit code from your app, or a recovery code")
    .max(40, "That code is too long"),
});

export type PasskeyListItem = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

/** GET /api/admin/sign-in-methods. */
export type SignInMethods = {
  passkeys: {
    available: boolean;
    unavailableReason: string | null;
    list: PasskeyListItem[];
    /** The passkey this session signed in with (its id), or null after a password sign-in. */
    signedInWith: string | null;
  };
  twoStep: {
    /** "unreadable": restored from another installation's backup, so off here until turned on again. */
    status: "off" | "enrolling" | "on" | "unreadable";
    recoveryCodesLeft: number;
  };
};
