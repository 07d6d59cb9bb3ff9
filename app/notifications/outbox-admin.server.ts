import { randomUUID } from "node:crypto";
import { readContent } from "~/content/content.server";
import { identity } from "~/identity";
import { z } from "~/lib/zod";
import type { AppServices } from "~/services.server";
import { MailSendError } from "./mailer.server";
import { messageIdFor, testMail } from "./messages.server";
import type { NotificationsOverview } from "./notification-state";
import { retryWaitingNow } from "./outbox-claims.server";

/** Where notifications go, and the admin's view of the outbox: its state and the Send test e-mail. */

/** NOTIFY_EMAIL, else the e-mail the owner keeps in the contact.email text, else the business e-mail. */
export async function notificationRecipient(services: Pick<AppServices, "db" | "logger" | "mail">): Promise<string> {
  if (services.mail?.notifyEmail) return services.mail.notifyEmail;
  const { "contact.email": stored } = await readContent(services, ["contact.email"]);
  return z.email().safeParse(stored.trim()).success ? stored.trim() : identity.email;
}

/** For the dashboard's notice: on or off, where mail goes, and how the last attempt went. */
export async function notificationsOverview(
  services: Pick<AppServices, "db" | "logger" | "mail">,
): Promise<NotificationsOverview> {
  const last = await services.db
    .selectFrom("notification_jobs")
    .select(["last_attempt_at", "last_error", "status"])
    .where("last_attempt_at", "is not", null)
    .orderBy("last_attempt_at", "desc")
    .limit(1)
    .executeTakeFirst();
  const failed = await services.db
    .selectFrom("notification_jobs")
    .select((eb) => eb.fn.countAll().as("count"))
    .where("status", "=", "failed")
    .executeTakeFirstOrThrow();
  return {
    enabled: services.mail !== null,
    recipient: await notificationRecipient(services),
    lastAttempt: last?.last_attempt_at
      ? { at: last.last_attempt_at, ok: last.status === "sent" || last.last_error === null, error: last.last_error }
      : null,
    failed: Number(failed.count),
  };
}

/** The dashboard's Send test e-mail: sent at once (not queued), reporting the server's exact error. */
export async function sendTestMail(
  services: Pick<AppServices, "db" | "logger" | "mail" | "clock" | "env" | "outboxWake">,
): Promise<{ ok: true; to: string } | { ok: false; message: string }> {
  const mail = services.mail;
  if (!mail)
    return { ok: false, message: "E-mail notifications are off: set SMTP_URL and MAIL_FROM, then restart the server." };
  const to = await notificationRecipient(services);
  const outgoing = testMail(
    { from: mail.from, to, siteUrl: services.env.SITE_URL },
    services.clock.now().toISOString(),
    messageIdFor("test", randomUUID(), mail.from),
  );
  try {
    await mail.mailer.send(outgoing);
    services.logger.info({ to }, "test e-mail sent");
    // Mail goes through again: whatever waits for a retry is sent now.
    if ((await retryWaitingNow(services.db, services.clock.now())) > 0) services.outboxWake.notify();
    return { ok: true, to };
  } catch (error) {
    const message = error instanceof MailSendError ? error.message : String((error as Error)?.message ?? error);
    services.logger.warn({ err: message }, "test e-mail not sent");
    return { ok: false, message };
  }
}
