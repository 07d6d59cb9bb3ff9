import type { ColumnType, Generated, Selectable } from "kysely";

/** Table types for Kysely, portable on purpose (text ids, ISO-8601 text timestamps, JSON as text). */
export interface ContentEntriesTable {
  key: string;
  content: string;
  updated_at: string;
  /** Who saved it (the administrator's username); null before revision history existed. */
  updated_by: string | null;
}

export interface GalleryImagesTable {
  id: string;
  gallery_type: string;
  caption: string;
  sort_order: number;
  image_path: string;
  width: number;
  height: number;
  placeholder: string;
  /** JSON: ImageVariants */
  variants: string;
  /** Private storage key of the uploaded original, kept for reprocessing. */
  original_key: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactSubmissionsTable {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  message: string;
  submitted_at: string;
  /** When the owner opened it; null while unread. */
  read_at: string | null;
  /** When the owner last asked the sender for a review (migration 0021); null if never. */
  review_asked_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Photos the visitor sent that are not with it (unknown or expired tokens, past a cap or past 5). */
  photos_not_attached: ColumnType<number, number | undefined, number>;
}

/** An item of a list the owner edits (app/content/lists.ts, migration 0021). */
export interface ListItemsTable {
  id: string;
  /** The list's key ("reviews"). */
  list: string;
  position: number;
  /** 1: kept in the admin, not shown on the site. */
  hidden: number;
  /** JSON: the item's declared fields, each text. */
  fields: string;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
  /** Always 1, and unique: the database holds one administrator at most (migration 0008, decision 0045). */
  singleton: Generated<number>;
  /**
   * The first start's generated password's hash (migration 0009): while it
   * equals password_hash, the password is the temporary one (decision 0051).
   */
  temporary_password_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SessionsTable {
  /** SHA-256 of the session token; the token itself is never stored. */
  id: string;
  user_id: string;
  expires_at: string;
  created_at: string;
  /** Updated at most every few minutes; a session unused for 14 days ends. */
  last_used_at: string | null;
  /** The passkey this session signed in with; null after a password sign-in (migration 0017). */
  passkey_id: string | null;
}

export interface UploadsTable {
  id: string;
  /** See UploadStatus in app/uploads/uploads.server.ts. */
  status: string;
  storage_key: string;
  content_type: string | null;
  bytes: number | null;
  expires_at: string;
  created_at: string;
  completed_at: string | null;
  /** Set for an upload sent in parts (app/uploads/resumable-uploads.server.ts): the size of each part. */
  part_bytes: number | null;
  /** The bucket's multipart upload id; null on the disk. */
  multipart_id: string | null;
}

/** One counter per (limit, client key); see app/db/rate-limit.server.ts. */
export interface RateLimitCountersTable {
  scope: string;
  key: string;
  window_start: string;
  expires_at: string;
  count: number;
}

/** Failed sign-ins since the last good one, per keyed hash of the client address. */
export interface SignInFailuresTable {
  address_hash: string;
  attempts: number;
  first_failed_at: string;
  last_failed_at: string;
}

/** The failures a good sign-in found, shown on that session's dashboard. */
export interface SignInReportsTable {
  session_id: string;
  failed_attempts: number;
  failed_addresses: number;
  /** 1 when more addresses failed than are kept (the count is then a lower bound). */
  addresses_capped: number;
  first_failed_at: string | null;
  last_failed_at: string | null;
}

/** The mail outbox (decision 0020): one row per notification e-mail to send. */
export interface NotificationJobsTable {
  id: string;
  /** "enquiry" | "more-photos" | "sign-in" | "security" (a change to the sign-in) | "offsite-failing" */
  kind: string;
  /** The enquiry, for kind "enquiry" (deleted with it). */
  submission_id: string | null;
  /** JSON: what the e-mail needs beyond the enquiry row (e.g. a sign-in's address). */
  payload: string;
  /** pending → sent | failed; "off" when notifications were off at the time. */
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  /** After a failure past this time the job is failed. */
  give_up_at: string | null;
  /** A worker's claim: nobody else sends the job until it passes. */
  lease_until: string | null;
  lease_token: string | null;
  /** Set when the hourly cap held the job back for that hour's digest (the hour's start). */
  digest_hour: string | null;
  message_id: string | null;
  last_error: string | null;
  last_attempt_at: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface NotificationHourlySendsTable {
  /** Start of the UTC clock hour, ISO-8601. */
  hour: string;
  sends: number;
}

export interface BackupLeasesTable {
  /** "scheduled" for the one scheduled backup across instances; a random id otherwise. */
  id: string;
  holder: string;
  purpose: string;
  acquired_at: string;
  expires_at: string;
}

export interface DeferredDeletionsTable {
  storage_key: string;
  deferred_at: string;
}

/** One row (id "default"): the backup schedule and what the dashboard shows. */
export interface BackupStateTable {
  id: string;
  tracking_since: string;
  next_due_at: string | null;
  last_success_at: string | null;
  last_success_bytes: number | null;
  last_success_name: string | null;
  last_problem_at: string | null;
  /** failed | skipped | warning */
  last_problem_kind: string | null;
  last_problem_message: string | null;
  last_download_at: string | null;
  /** The newest copy kept off the server. */
  offsite_last_at: string | null;
  offsite_last_name: string | null;
  /** Off-site uploads failed in a row since the last that worked (null: none). */
  offsite_failures: number | null;
  offsite_failed_at: string | null;
  offsite_last_error: string | null;
  /** When this outage's e-mail was queued; cleared by the next upload that works. */
  offsite_alerted_at: string | null;
  /** When the next off-site copy is due (decision 0060); every instance reads the same. */
  offsite_next_due_at: string | null;
  /** The first failed copy since the last that worked (null: none failing). */
  offsite_failing_since: string | null;
  /** Bytes the last copy that worked sent to the store. */
  offsite_last_sent_bytes: number | string | null;
}

/** Generated secrets shared by every instance, e.g. the upload-signing key. */
export interface SecretsTable {
  name: string;
  value: string;
  created_at: string;
}
/** An earlier text of a content section (decision 0030). */
export interface ContentRevisionsTable {
  id: string;
  key: string;
  content: string;
  saved_at: string;
  saved_by: string | null;
  replaced_at: string;
}

/** Visits per New Zealand day (YYYY-MM-DD): aggregates, kept. */
export interface AnalyticsDailyTable {
  day: string;
  views: number;
  visitors: number;
  closed_at: string | null;
}

export interface AnalyticsDailyPagesTable {
  day: string;
  path: string;
  views: number;
}

export interface AnalyticsDailyReferrersTable {
  day: string;
  host: string;
  views: number;
  /** Addresses visitors came from that day (counted until 2): listed from 2. */
  addresses: ColumnType<number, number | undefined, number>;
}

/** Working data: the day's random salt, deleted when the day ends. */
export interface AnalyticsSaltsTable {
  day: string;
  salt: string;
  created_at: string;
}

/** Working data: the day's visitor hashes, deleted when the day ends. */
export interface AnalyticsVisitorsTable {
  day: string;
  hash: string;
}

/** A passkey (decision 0053): its public key and signature counter, never anything secret. */
export interface PasskeysTable {
  /** The credential id, base64url. */
  id: string;
  user_id: string;
  name: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON: the transports the browser reported. */
  transports: string;
  created_at: string;
  last_used_at: string | null;
}

/** Two-step verification: the TOTP secret, encrypted with a key that is never in a backup. */
export interface TwoFactorTable {
  user_id: string;
  secret_encrypted: string;
  /** Null while enrolling. */
  enabled_at: string | null;
  last_used_step: Generated<number>;
  created_at: string;
  /**
   * The key the recovery codes were hashed with, sealed under this installation's two-step key;
   * null: the installation's key itself (migration 0017, decision 0058).
   */
  recovery_key_sealed: string | null;
}

export interface RecoveryCodesTable {
  /** HMAC-SHA256 of the code; the code itself is shown once and never stored. */
  code_hash: string;
  user_id: string;
  created_at: string;
}

/** Short-lived sign-in steps tied to one browser's cookie: WebAuthn challenges, a pending two-step sign-in. */
export interface AuthCeremoniesTable {
  id: string;
  kind: string;
  challenge: string | null;
  user_id: string | null;
  attempts: Generated<number>;
  created_at: string;
  expires_at: string;
}

/** The security log (decision 0054, app/activity/activity-log.server.ts): no full client address. */
export interface ActivityLogTable {
  id: string;
  occurred_at: string;
  /** An ActivityKind. */
  kind: string;
  /** success | failure | refused */
  outcome: string;
  /** JSON: ActivityDetail. */
  detail: string;
  /** Cut to 256 characters. */
  user_agent: string | null;
  /** IPv4 /24 or IPv6 /48. */
  network: string | null;
  /** The limiters' keyed hash of the normalised address. */
  address_hash: string | null;
  count: ColumnType<number, number | undefined, number>;
  /** Set on a folded record (refused attempts, one per kind per hour). */
  fold_key: string | null;
}

/** A visitor's photo of the job (app/enquiry-photos/); only processed copies are stored. */
export interface EnquiryPhotosTable {
  id: string;
  /** SHA-256 of the token the browser holds; the token itself is never stored. */
  token_hash: string;
  /** The limiters' keyed hash of the uploader's address. */
  address_hash: string;
  /** processing | ready (capped: only in rows from before decision 0057, never attached) */
  status: string;
  submission_id: string | null;
  /** 1-based, in the visitor's order; null until attached. */
  position: number | null;
  thumb_key: string | null;
  view_key: string | null;
  thumb_bytes: ColumnType<number, number | undefined, number>;
  view_bytes: ColumnType<number, number | undefined, number>;
  /** The viewing copy's size. */
  width: ColumnType<number, number | undefined, number>;
  height: ColumnType<number, number | undefined, number>;
  created_at: string;
  /** When the token stops working. */
  expires_at: string;
}

export interface DatabaseSchema {
  content_entries: ContentEntriesTable;
  gallery_images: GalleryImagesTable;
  contact_submissions: ContactSubmissionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  uploads: UploadsTable;
  rate_limit_counters: RateLimitCountersTable;
  sign_in_failures: SignInFailuresTable;
  sign_in_reports: SignInReportsTable;
  notification_jobs: NotificationJobsTable;
  notification_hourly_sends: NotificationHourlySendsTable;
  backup_leases: BackupLeasesTable;
  deferred_deletions: DeferredDeletionsTable;
  backup_state: BackupStateTable;
  secrets: SecretsTable;
  content_revisions: ContentRevisionsTable;
  analytics_daily: AnalyticsDailyTable;
  analytics_daily_pages: AnalyticsDailyPagesTable;
  analytics_daily_referrers: AnalyticsDailyReferrersTable;
  analytics_salts: AnalyticsSaltsTable;
  analytics_visitors: AnalyticsVisitorsTable;
  passkeys: PasskeysTable;
  two_factor: TwoFactorTable;
  recovery_codes: RecoveryCodesTable;
  auth_ceremonies: AuthCeremoniesTable;
  activity_log: ActivityLogTable;
  enquiry_photos: EnquiryPhotosTable;
  list_items: ListItemsTable;
}

export type GalleryImageRow = Selectable<GalleryImagesTable>;
export type ContactSubmissionRow = Selectable<ContactSubmissionsTable>;
export type NotificationJobRow = Selectable<NotificationJobsTable>;
