import { randomUUID } from "node:crypto";
import { z } from "~/lib/zod";
import type { AppServices } from "~/services.server";
import { messageIdFor, type SecurityNotice } from "./messages.server";
import { giveUpTime } from "./retry-schedule";

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
  if (!services.mail) return;
  try {
    const now = services.clock.now();
    const id = randomUUID();
    const payload: SecurityNotice = { ...notice, at: now.toISOString(), userAgent: notice.userAgent.slice(0, 500) };
    await services.db
      .insertInto("notification_jobs")
      .values({
        id,
        kind: "security",
        submission_id: null,
        payload: JSON.stringify(payload),
        status: "pending",
        attempts: 0,
        next_attempt_at: now.toISOString(),
        give_up_at: giveUpTime(now),
        message_id: messageIdFor("security", id, services.mail.from),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .execute();
    services.outboxWake.notify();
  } catch (error) {
    services.logger.error({ err: error, kind: notice.kind }, "could not queue the security notice");
  }
}
