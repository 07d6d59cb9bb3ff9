import { z } from "~/lib/zod";
import type { AppServices } from "~/services.server";
import { SECURITY_NOTICE_KINDS, type SecurityNotice } from "./messages.server";
import { queueOwnerAlert } from "./outbox-queue.server";

/** The outbox job of a security notice ("security"), read back by the worker. */
export const securityNoticePayloadSchema = z.object({
  kind: z.enum(SECURITY_NOTICE_KINDS),
  at: z.string(),
  userAgent: z.string(),
  passkeyName: z.string().optional(),
  passkeyNames: z.array(z.string()).optional(),
  previousAddress: z.string().optional(),
  newAddress: z.string().optional(),
  /** Sent here instead of the usual recipient: the previous address, when the address changes. */
  to: z.string().optional(),
});

export type SecurityNoticePayload = z.infer<typeof securityNoticePayloadSchema>;

/**
 * Tells the owner of a change to the sign-in, through the outbox (not while mail is off); `to` overrides the
 * recipient. Never throws: a failed queue must not undo the change.
 */
export async function queueSecurityNotice(
  services: Pick<AppServices, "db" | "mail" | "outboxWake" | "clock" | "logger">,
  notice: Omit<SecurityNotice, "at"> & { to?: string },
): Promise<void> {
  try {
    const payload: SecurityNoticePayload = {
      ...notice,
      at: services.clock.now().toISOString(),
      userAgent: notice.userAgent.slice(0, 500),
    };
    await queueOwnerAlert("security", payload, services);
  } catch (error) {
    services.logger.error({ err: error, kind: notice.kind }, "could not queue the security notice");
  }
}
