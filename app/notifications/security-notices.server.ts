import { z } from "~/lib/zod";
import type { AppServices } from "~/services.server";
import type { SecurityNotice } from "./messages.server";
import { queueOwnerAlert } from "./outbox-queue.server";

/** Issue 19 item 10: the outbox job of a security notice ("security"), read back by the worker. */
export const securityNoticePayloadSchema = z.object({
  kind: z.enum(["passkey-added", "two-step-off", "recovery-codes-renewed", "password-changed", "recovery-code-used"]),
  at: z.string(),
  userAgent: z.string(),
  passkeyName: z.string().optional(),
});

/**
 * E-mails the owner about a change to the sign-in (a new passkey, two-step
 * off, a new password, a recovery code used) through the outbox; nothing is
 * queued while mail is off. Never throws: a failed queue must not undo the change.
 */
export async function queueSecurityNotice(
  services: Pick<AppServices, "db" | "mail" | "outboxWake" | "clock" | "logger">,
  notice: Omit<SecurityNotice, "at">,
): Promise<void> {
  try {
    const payload: SecurityNotice = { ...notice, at: services.clock.now().toISOString(), userAgent: notice.userAgent.slice(0, 500) };
    await queueOwnerAlert("security", payload, services);
  } catch (error) {
    services.logger.error({ err: error, kind: notice.kind }, "could not queue the security notice");
  }
}
