import type { Insertable, Selectable } from "kysely";

/**
 * Table types for Kysely. Kept portable on purpose (text ids, ISO-8601 text
 * timestamps, JSON as text) so a PostgreSQL backend needs no schema change.
 */
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

/** An earlier text of a content section (issue 11). */
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

export interface DatabaseSchema {
  content_entries: ContentEntriesTable;
  gallery_images: GalleryImagesTable;
  contact_submissions: ContactSubmissionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  uploads: UploadsTable;
  content_revisions: ContentRevisionsTable;
  analytics_daily: AnalyticsDailyTable;
  analytics_daily_pages: AnalyticsDailyPagesTable;
  analytics_daily_referrers: AnalyticsDailyReferrersTable;
  analytics_salts: AnalyticsSaltsTable;
  analytics_visitors: AnalyticsVisitorsTable;
}

export type ContentEntryRow = Selectable<ContentEntriesTable>;
export type GalleryImageRow = Selectable<GalleryImagesTable>;
export type NewGalleryImage = Insertable<GalleryImagesTable>;
export type ContactSubmissionRow = Selectable<ContactSubmissionsTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type UploadRow = Selectable<UploadsTable>;
export type ContentRevisionRow = Selectable<ContentRevisionsTable>;
