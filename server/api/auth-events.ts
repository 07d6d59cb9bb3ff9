import type { Request } from "express";
import type { AppServices } from "~/services.server";

/**
 * Issue 19's security events (sign-ins by passkey and two-step, changes to
 * the sign-in methods). The security log (issue 19 items 8-9, app/activity/)
 * records them; until it is merged they go to the log only.
 */
export type AuthEvent =
  | { type: "passkey-sign-in"; outcome: "success" | "failure" | "refused"; passkeyName?: string }
  | { type: "two-step-sign-in"; outcome: "success" | "failure" | "refused"; method?: "app-code" | "recovery-code" }
  | { type: "two-step-on" | "two-step-off" | "recovery-codes-renewed" }
  | { type: "passkey-added" | "passkey-removed"; passkeyName: string };

export async function recordAuthEvent(services: AppServices, req: Request, event: AuthEvent): Promise<void> {
  // TODO(h10-activity): record through app/activity/ once merged.
  services.logger.info({ ...event, ip: req.ip }, `security event: ${event.type}`);
}
