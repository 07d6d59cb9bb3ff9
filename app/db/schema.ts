import type { Insertable, Selectable } from "kysely";

/**
 * Table types for Kysely. Kept portable on purpose (text ids, ISO-8601 text
 * timestamps, JSON as text) so a PostgreSQL backend needs no schema change.
 */
export interface ContentEntriesTable {
  key: string;
  content: string;
  updated_at: string;
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
}

export interface UsersTable {
  id: string;
  username: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  /** SHA-256 of the session token; the token itself is never stored. */
  id: string;
  user_id: string;
  expires_at: string;
  created_at: string;
  /** Updated at most every few minutes; a session unused for 14 days ends. */
  last_used_at: string | null;
}

export interface UploadsTable {
  id: string;
  /** pending → completed → used */
  status: string;
  storage_key: string;
  content_type: string | null;
  bytes: number | null;
  expires_at: string;
  created_at: string;
  completed_at: string | null;
}

/** One counter per (limit, client key); see app/lib/rate-limit.server.ts. */
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
}

export type ContentEntryRow = Selectable<ContentEntriesTable>;
export type GalleryImageRow = Selectable<GalleryImagesTable>;
export type NewGalleryImage = Insertable<GalleryImagesTable>;
export type ContactSubmissionRow = Selectable<ContactSubmissionsTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type UploadRow = Selectable<UploadsTable>;
