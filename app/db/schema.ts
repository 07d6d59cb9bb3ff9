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
  /** See UploadStatus in app/uploads/uploads.server.ts. */
  status: string;
  storage_key: string;
  content_type: string | null;
  bytes: number | null;
  expires_at: string;
  created_at: string;
  completed_at: string | null;
}

/** Generated secrets shared by every instance (issue 12), e.g. the upload-signing key. */
export interface SecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface DatabaseSchema {
  content_entries: ContentEntriesTable;
  gallery_images: GalleryImagesTable;
  contact_submissions: ContactSubmissionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  uploads: UploadsTable;
  secrets: SecretsTable;
}

export type ContentEntryRow = Selectable<ContentEntriesTable>;
export type GalleryImageRow = Selectable<GalleryImagesTable>;
export type NewGalleryImage = Insertable<GalleryImagesTable>;
export type ContactSubmissionRow = Selectable<ContactSubmissionsTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type UploadRow = Selectable<UploadsTable>;
