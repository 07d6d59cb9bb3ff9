import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DatabaseSchema } from "~/db/schema";
import { z } from "~/lib/zod";
import type { AppServices } from "~/services.server";
import { enquiryMessageId, messageIdFor, type SignInForMail } from "./messages.server";
import { giveUpTime } from "./retry-schedule";

/** Queueing notification e-mails (decision 0020) as notification_jobs rows. */

type Db = Kysely<DatabaseSchema>;

/** In the enquiry's transaction; with notifications off the job is "off", so no backlog is mailed later. */
export async function queueEnquiryNotification(
  trx: Db,
  services: Pick<AppServices, "mail">,
  submissionId: string,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const on = services.mail !== null;
  await trx
    .insertInto("notification_jobs")
    .values({
      id: randomUUID(),
      kind: "enquiry",
      submission_id: submissionId,
      payload: "{}",
      status: on ? "pending" : "off",
      attempts: 0,
      next_attempt_at: on ? at : null,
      give_up_at: on ? giveUpTime(now) : null,
      // Stable: a retry after an unclear failure shows as the same mail.
      message_id: on ? enquiryMessageId(submissionId, services.mail!.from) : null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

/** What a sign-in alert's job holds until it is sent (or fails for good), then clears. */
export const signInPayloadSchema = z.object({ at: z.string(), address: z.string(), userAgent: z.string() });

type OwnerAlertServices = Pick<AppServices, "db" | "mail" | "outboxWake" | "clock">;

/** One e-mail to the owner through the outbox, in `db`; not queued while notifications are off. */
export async function queueOwnerAlert(
  kind: string,
  payload: object,
  services: OwnerAlertServices,
  db: Db = services.db,
): Promise<{ queued: boolean }> {
  if (!services.mail) return { queued: false };
  const now = services.clock.now();
  const id = randomUUID();
  await db
    .insertInto("notification_jobs")
    .values({
      id,
      kind,
      submission_id: null,
      payload: JSON.stringify(payload),
      status: "pending",
      attempts: 0,
      next_attempt_at: now.toISOString(),
      give_up_at: giveUpTime(now),
      message_id: messageIdFor(kind, id, services.mail.from),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  services.outboxWake.notify();
  return { queued: true };
}

export const MORE_PHOTOS_KIND = "more-photos";
/** Which enquiry got more photos, from which place on (its submission_id stays null: one job per enquiry is its own mail's). */
export const morePhotosPayloadSchema = z.object({ submissionId: z.string(), from: z.number().int().min(1) });

/** New photos on an enquiry: a short mail once its own mail has gone, which carries them until then. */
export async function queueMorePhotosMail(
  trx: Db,
  services: OwnerAlertServices,
  submissionId: string,
  from: number,
): Promise<void> {
  const job = await trx
    .selectFrom("notification_jobs")
    .select(["status", "lease_until"])
    .where("submission_id", "=", submissionId)
    .executeTakeFirst();
  const inFlight =
    job?.status === "pending" && job.lease_until !== null && job.lease_until > services.clock.now().toISOString();
  if (job?.status === "sent" || inFlight)
    await queueOwnerAlert(MORE_PHOTOS_KIND, { submissionId, from }, services, trx);
}

/** For a browser that has not signed in before. */
export async function queueSignInAlert(
  services: OwnerAlertServices,
  signIn: { at: Date | string; address: string; userAgent: string },
): Promise<{ queued: boolean }> {
  const payload: SignInForMail = {
    at: new Date(signIn.at).toISOString(),
    address: signIn.address.slice(0, 100),
    userAgent: signIn.userAgent.slice(0, 500),
  };
  return queueOwnerAlert("sign-in", payload, services);
}

export type ResendOutcome = "queued" | "not-found" | "off" | "busy";

/** Send again: a new Message-ID (providers drop repeats) and 24 fresh hours; refused while a send is in progress. */
export async function resendEnquiryNotification(
  services: Pick<AppServices, "db" | "mail" | "outboxWake" | "clock">,
  submissionId: string,
): Promise<ResendOutcome> {
  const exists = await services.db
    .selectFrom("contact_submissions")
    .select("id")
    .where("id", "=", submissionId)
    .executeTakeFirst();
  if (!exists) return "not-found";
  if (!services.mail) return "off";
  const now = services.clock.now();
  const at = now.toISOString();
  const fresh = {
    status: "pending",
    attempts: 0,
    next_attempt_at: at,
    give_up_at: giveUpTime(now),
    digest_hour: null,
    message_id: enquiryMessageId(submissionId, services.mail.from, randomUUID().slice(0, 8)),
    last_error: null,
    sent_at: null,
    updated_at: at,
  };
  const result = await services.db
    .insertInto("notification_jobs")
    .values({ id: randomUUID(), kind: "enquiry", submission_id: submissionId, payload: "{}", created_at: at, ...fresh })
    .onConflict((oc) =>
      oc
        .column("submission_id")
        .doUpdateSet(fresh)
        .where((eb) =>
          eb.or([eb("notification_jobs.lease_until", "is", null), eb("notification_jobs.lease_until", "<=", at)]),
        ),
    )
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return "busy";
  services.outboxWake.notify();
  return "queued";
}
