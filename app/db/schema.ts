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
}

export interface DatabaseSchema {
  content_entries: ContentEntriesTable;
  gallery_images: GalleryImagesTable;
  contact_submissions: ContactSubmissionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  uploads: UploadsTable;
  backup_leases: BackupLeasesTable;
  deferred_deletions: DeferredDeletionsTable;
  backup_state: BackupStateTable;
}

export type ContentEntryRow = Selectable<ContentEntriesTable>;
export type GalleryImageRow = Selectable<GalleryImagesTable>;
export type NewGalleryImage = Insertable<GalleryImagesTable>;
export type ContactSubmissionRow = Selectable<ContactSubmissionsTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type UploadRow = Selectable<UploadsTable>;
