import { randomUUID } from "node:crypto";
import type { ExpressionBuilder } from "kysely";
import { lockForTransaction } from "~/db/database.server";
import type { ContactSubmissionRow, DatabaseSchema } from "~/db/schema";
import {
  attachEnquiryPhotos,
  deleteEnquiryPhotoObjects,
  type AttachedPhotos,
  deleteEnquiryPhotoRows,
  enquiryPhotosOf,
} from "~/enquiry-photos/enquiry-photos.server";
import type { EnquiryPhotoSummary, PhotoOutcome } from "~/enquiry-photos/enquiry-photos";
import {
  NOTIFICATIONS_OFF_STATE,
  type NotificationState,
  type NotificationStatus,
} from "~/notifications/notification-state";
import { queueEnquiryNotification, queueMorePhotosMail } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import {
  HONEYPOT_FIELD,
  contactFieldErrors,
  contactMessageSchema,
  type ContactFieldErrors,
  type ContactSubmission,
} from "./contact-schema";
import { submissionFromRow } from "~/notifications/enquiry-fields";
import { INBOX_PAGE_SIZE, type InboxItem, type InboxSummary } from "./inbox";

/** The same enquiry again within this time (same name, e-mail and message) is not stored twice. */
export const DUPLICATE_ENQUIRY_WINDOW_MS = 10 * 60_000;

export type EnquiryOutcome =
  /** `duplicate`: `submission` is the first, stored within DUPLICATE_ENQUIRY_WINDOW_MS; nothing new is stored. */
  | { status: "stored"; submission: ContactSubmission; photos?: PhotoOutcome; duplicate?: true }
  /** The honeypot was filled in: answered like a success, not stored. */
  | { status: "trapped" }
  | { status: "invalid"; errors: ContactFieldErrors }
  | { status: "rate-limited"; retryAfterSeconds: number };

/** A repeat within DUPLICATE_ENQUIRY_WINDOW_MS is answered before the limit: a second tap is not counted twice. */
export async function submitEnquiry(
  services: Pick<
    AppServices,
    "db" | "logger" | "limits" | "clock" | "mail" | "outboxWake" | "addressKey" | "env" | "storage"
  >,
  input: Record<string, unknown>,
  clientIp: string,
  /** Tokens of photos uploaded (from any address), attached in the same transaction. */
  options: { photoTokens?: readonly string[] } = {},
): Promise<EnquiryOutcome> {
  const { photoTokens } = options;
  const parsed = contactMessageSchema.safeParse(input);
  if (!parsed.success) return { status: "invalid", errors: contactFieldErrors(parsed.error) };

  const honeypot = input[HONEYPOT_FIELD];
  const trapped = typeof honeypot === "string" && honeypot.trim() !== "";
  if (!trapped) {
    const first = await storedAlready(services.db, parsed.data, services.clock.now());
    if (first) return repeatOf(services, first, clientIp, photoTokens);
  }

  const limit = await services.limits.contact.hit(clientIp);
  if (!limit.allowed) return { status: "rate-limited", retryAfterSeconds: limit.retryAfterSeconds };

  if (trapped) {
    services.logger.info({ clientIp }, "contact honeypot filled in; enquiry dropped");
    return { status: "trapped" };
  }

  const now = services.clock.now();
  const row: ContactSubmissionRow = {
    id: randomUUID(),
    name: parsed.data.name,
    email: parsed.data.email,
    phone: parsed.data.phone ?? null,
    message: parsed.data.message,
    submitted_at: now.toISOString(),
    read_at: null,
    photos_not_attached: 0,
    review_asked_at: null,
  };
  // The enquiry, its photos and its notification job commit together or not at all (the outbox, decision 0020).
  const stored = await services.db.transaction().execute(async (trx) => {
    // Two copies sent at once: the second waits here and then finds the first.
    await lockForTransaction(trx, `enquiry:${row.email.toLowerCase()}`);
    const first = await storedAlready(trx, parsed.data, now);
    if (first) return { first };
    const attached = photoTokens ? await attachEnquiryPhotos(trx, services, row.id, photoTokens, clientIp) : undefined;
    row.photos_not_attached = attached?.missing ?? 0;
    await trx.insertInto("contact_submissions").values(row).execute();
    await queueEnquiryNotification(trx, services, row.id, now);
    return { attached };
  });
  if ("first" in stored && stored.first) return repeatOf(services, stored.first, clientIp, photoTokens);
  const photos = "attached" in stored ? stored.attached : undefined;
  services.outboxWake.notify();
  // Photos it let go: their rows went with the transaction, their files go now.
  if (photos?.leftOutKeys.length) await deleteEnquiryPhotoObjects(services, photos.leftOutKeys);
  services.logger.info({ submissionId: row.id, photos: photos?.attached }, "contact enquiry stored");
  return { status: "stored", submission: submissionFromRow(row), ...photoOutcome(photos) };
}

const photoOutcome = (photos: AttachedPhotos | undefined) =>
  photos ? { photos: { attached: photos.attached, notAttached: photos.notAttached, notTaken: photos.notTaken } } : {};

type EnquiryText = { name: string; email: string; message: string };

/** The first enquiry with this name, e-mail and message stored within DUPLICATE_ENQUIRY_WINDOW_MS, if any. */
async function storedAlready(
  db: AppServices["db"],
  text: EnquiryText,
  now: Date,
): Promise<ContactSubmissionRow | undefined> {
  return db
    .selectFrom("contact_submissions")
    .selectAll()
    .where("submitted_at", ">", new Date(now.getTime() - DUPLICATE_ENQUIRY_WINDOW_MS).toISOString())
    .where("email", "=", text.email)
    .where("name", "=", text.name)
    .where("message", "=", text.message)
    .orderBy("submitted_at", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
}

/** A repeat's new photos join the first enquiry (up to 5, same caps); if its mail has gone, a short one follows. */
async function repeatOf(
  services: Parameters<typeof submitEnquiry>[0],
  first: ContactSubmissionRow,
  clientIp: string,
  photoTokens: readonly string[] | undefined,
): Promise<EnquiryOutcome> {
  services.logger.info({ submissionId: first.id }, "contact enquiry sent again; answered with the first");
  const repeat = { status: "stored", submission: submissionFromRow(first), duplicate: true } as const;
  if (!photoTokens) return repeat;
  const photos = await services.db.transaction().execute(async (trx) => {
    const photos = await attachEnquiryPhotos(trx, services, first.id, photoTokens, clientIp);
    if (photos.missing > 0) {
      await trx
        .updateTable("contact_submissions")
        .set((eb) => ({ photos_not_attached: eb("photos_not_attached", "+", photos.missing) }))
        .where("id", "=", first.id)
        .execute();
    }
    if (photos.added > 0) await queueMorePhotosMail(trx, services, first.id, photos.firstAdded);
    return photos;
  });
  services.outboxWake.notify();
  if (photos.leftOutKeys.length) await deleteEnquiryPhotoObjects(services, photos.leftOutKeys);
  return { ...repeat, ...photoOutcome(photos) };
}

// The inbox

type Cursor = { submittedAt: string; id: string };

/** Opaque to clients: the (submitted time, id) of the last item seen. */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.submittedAt}|${cursor.id}`, "utf8").toString("base64url");
}

export function decodeCursor(value: string): Cursor | null {
  const text = Buffer.from(value, "base64url").toString("utf8");
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\|([\w-]{1,40})$/.exec(text);
  return match ? { submittedAt: match[1]!, id: match[2]! } : null;
}

export class InvalidCursorError extends Error {
  override name = "InvalidCursorError";
}

function inboxQuery(db: AppServices["db"]) {
  return db
    .selectFrom("contact_submissions as s")
    .leftJoin("notification_jobs as j", "j.submission_id", "s.id")
    .select([
      "s.id",
      "s.name",
      "s.email",
      "s.phone",
      "s.message",
      "s.submitted_at",
      "s.read_at",
      "s.photos_not_attached",
      "s.review_asked_at",
      "j.status as job_status",
      "j.attempts as job_attempts",
      "j.last_error as job_last_error",
      "j.next_attempt_at as job_next_attempt_at",
      "j.sent_at as job_sent_at",
      "j.digest_hour as job_digest_hour",
    ]);
}

type InboxRow = Awaited<ReturnType<ReturnType<typeof inboxQuery>["executeTakeFirstOrThrow"]>>;

function notificationStateOf(row: InboxRow): NotificationState {
  // Enquiries stored before the outbox existed have no job: they were never going to be mailed.
  if (!row.job_status) return NOTIFICATIONS_OFF_STATE;
  return {
    status: row.job_status as NotificationStatus,
    attempts: Number(row.job_attempts ?? 0),
    lastError: row.job_last_error,
    nextAttemptAt: row.job_status === "pending" ? row.job_next_attempt_at : null,
    sentAt: row.job_sent_at,
    inDigest: row.job_status === "pending" && row.job_digest_hour !== null,
  };
}

function toInboxItem(row: InboxRow, photos: Map<string, EnquiryPhotoSummary[]>): InboxItem {
  return {
    ...submissionFromRow(row),
    cursor: encodeCursor({ submittedAt: row.submitted_at, id: row.id }),
    readAt: row.read_at,
    reviewAskedAt: row.review_asked_at,
    notification: notificationStateOf(row),
    photos: photos.get(row.id) ?? [],
  };
}

/** Inbox items with their photos: one more query for the whole page, never one per item. */
async function withPhotos(services: Pick<AppServices, "db">, rows: InboxRow[]): Promise<InboxItem[]> {
  const photos = await enquiryPhotosOf(
    services,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toInboxItem(row, photos));
}

/** (submitted_at, id) < (cursor): a row-value comparison (SQLite ≥ 3.15, PostgreSQL) that seeks the index, so deep pages cost what the first does. */
const olderThan =
  (cursor: Cursor) => (eb: ExpressionBuilder<DatabaseSchema & { s: DatabaseSchema["contact_submissions"] }, "s">) =>
    eb(eb.refTuple("s.submitted_at", "s.id"), "<", eb.tuple(cursor.submittedAt, cursor.id));

/** Keyset paging on (submitted_at, id): a deletion between pages skips nothing, and page 200 costs what page 1 does. */
export async function listInbox(
  { db }: Pick<AppServices, "db">,
  options: { limit?: number; before?: string | null; unreadOnly?: boolean } = {},
): Promise<InboxItem[]> {
  let query = inboxQuery(db)
    .orderBy("s.submitted_at", "desc")
    .orderBy("s.id", "desc")
    .limit(options.limit ?? INBOX_PAGE_SIZE);
  if (options.unreadOnly) query = query.where("s.read_at", "is", null);
  if (options.before) {
    const cursor = decodeCursor(options.before);
    if (!cursor) throw new InvalidCursorError("before is not a cursor from this list");
    query = query.where(olderThan(cursor));
  }
  return withPhotos({ db }, await query.execute());
}

export async function getInboxItem({ db }: Pick<AppServices, "db">, id: string): Promise<InboxItem | null> {
  const row = await inboxQuery(db).where("s.id", "=", id).executeTakeFirst();
  return row ? ((await withPhotos({ db }, [row]))[0] ?? null) : null;
}

/** Opening marks read (the first opening's time is kept); it can be marked unread again. */
export async function setRead(
  services: Pick<AppServices, "db" | "clock">,
  id: string,
  read: boolean,
): Promise<InboxItem | null> {
  const update = services.db.updateTable("contact_submissions").where("id", "=", id);
  if (read) await update.set({ read_at: services.clock.now().toISOString() }).where("read_at", "is", null).execute();
  else await update.set({ read_at: null }).execute();
  return getInboxItem(services, id);
}

/** The owner asked the sender for a review (the server sends nothing): when, kept with the enquiry. */
export async function markReviewAsked(
  services: Pick<AppServices, "db" | "clock">,
  id: string,
): Promise<InboxItem | null> {
  await services.db
    .updateTable("contact_submissions")
    .set({ review_asked_at: services.clock.now().toISOString() })
    .where("id", "=", id)
    .execute();
  return getInboxItem(services, id);
}

/** With its notification job and photos (rows in the same transaction, files after the commit). */
export async function deleteSubmission(
  services: Pick<AppServices, "db" | "logger" | "storage" | "clock">,
  id: string,
): Promise<boolean> {
  const { deleted, photoKeys } = await services.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("notification_jobs").where("submission_id", "=", id).execute();
    const photoKeys = await deleteEnquiryPhotoRows(trx, id);
    const result = await trx.deleteFrom("contact_submissions").where("id", "=", id).executeTakeFirst();
    return { deleted: Number(result.numDeletedRows) === 1, photoKeys };
  });
  await deleteEnquiryPhotoObjects(services, photoKeys);
  if (deleted) services.logger.info({ submissionId: id, photos: photoKeys.length / 2 }, "contact enquiry deleted");
  return deleted;
}

export async function inboxSummary({ db }: Pick<AppServices, "db">): Promise<InboxSummary> {
  const row = await db
    .selectFrom("contact_submissions")
    .select((eb) => [eb.fn.countAll().as("total"), eb.fn.count("id").filterWhere("read_at", "is", null).as("unread")])
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), unread: Number(row.unread) };
}

/** Every enquiry, newest first, a batch at a time (for the CSV export: memory stays flat). */
export async function* allInboxItems(services: Pick<AppServices, "db">, batchSize = 500): AsyncGenerator<InboxItem[]> {
  let before: string | null = null;
  for (;;) {
    const page = await listInbox(services, { limit: batchSize, before });
    if (page.length === 0) return;
    yield page;
    if (page.length < batchSize) return;
    before = page[page.length - 1]!.cursor;
  }
}
