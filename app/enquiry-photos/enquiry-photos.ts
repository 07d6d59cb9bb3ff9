/** Enquiry photos (decision 0056): what the browser and server share. Browser-safe: no server imports. */

/** At most this many photos per enquiry. */
export const MAX_ENQUIRY_PHOTOS = 5;
/** Each photo as chosen, before processing. */
export const MAX_ENQUIRY_PHOTO_BYTES = 15 * 1024 * 1024;
/** The four accepted types (iPhones turn HEIC into JPEG for an `accept="image/*"` field). */
export const ENQUIRY_PHOTO_TYPES = ["image/jpeg", "image/png", "image/webp", "image/avif"] as const;
export type EnquiryPhotoType = (typeof ENQUIRY_PHOTO_TYPES)[number];

export const ENQUIRY_PHOTOS_LABEL = "Photos of the job (optional)";
/** The multipart field of POST /api/enquiry-photos and of the no-JS form's file input. */
export const ENQUIRY_PHOTO_FIELD = "photos";
/** The JSON field of POST /api/contact that carries the tokens. */
export const PHOTO_TOKENS_FIELD = "photoTokens";

export const TOO_MANY_PHOTOS_MESSAGE = "Up to 5 photos.";
export function unsupportedPhotoMessage(fileName: string): string {
  return `File ${fileName} is not a supported photo. Please use JPEG, PNG, WebP or AVIF.`;
}
/** Refused in the picker and by the server, in the same words. */
export function photoTooLargeMessage(fileName: string): string {
  return `Photo ${fileName} is larger than 15 MB.`;
}
/** Shown under the form when a cap kept the photos out but the enquiry was stored. */
export function photosNotTakenMessage(contactEmail: string): string {
  return `Your message was sent, but we could not take photos today. Please e-mail them to ${contactEmail}.`;
}
/** Shown under the form for photos whose tokens attached nothing (unknown, used, expired, or displaced). */
export function photosNotAttachedMessage(count: number, contactEmail: string): string {
  const [photos, them] = count === 1 ? ["1 photo", "it"] : [`${count} photos`, "them"];
  return `${photos} could not be sent with your message. Please send ${them} again, or e-mail ${them} to ${contactEmail}.`;
}
/** What the owner's e-mail and inbox card say of them. */
export const photosNotAttachedLine = (count: number) =>
  `${count === 1 ? "1 photo" : `${count} photos`} could not be attached.`;

/** What the form says after a send: nothing when every photo went with the message. */
export function photoOutcomeMessages(photos: Partial<PhotoOutcome> | undefined, contactEmail: string): string[] {
  return [
    ...(photos?.notTaken ? [photosNotTakenMessage(contactEmail)] : []),
    ...(photos?.notAttached ? [photosNotAttachedMessage(photos.notAttached, contactEmail)] : []),
  ];
}

/** Kept copies: long side in pixels. */
export const THUMB_LONG_SIDE = 320;
export const VIEW_LONG_SIDE = 1600;
/** So the notification e-mail attaches the viewing copy as it is (§9). */
export const VIEW_COPY_MAX_BYTES = 300 * 1024;

export type EnquiryPhotoSize = "thumb" | "view";

/** What the inbox needs to show an enquiry's photos; `n` counts from 1 in the order the visitor chose them. */
export type EnquiryPhotoSummary = { n: number; width: number; height: number };

/** GET /api/admin/contact-submissions/:id/photos/:n?size=thumb|view (signed-in owner only, private, no-store). */
export function enquiryPhotoUrl(submissionId: string, n: number, size: EnquiryPhotoSize): string {
  return `/api/admin/contact-submissions/${encodeURIComponent(submissionId)}/photos/${n}?size=${size}`;
}

/** POST /api/enquiry-photos answers 201 with this. */
export type EnquiryPhotoAccepted = { token: string; name: string };

/** `notTaken`: a daily or storage cap kept some out; `notAttached`: unknown, used, expired, displaced, or past 5. */
export type PhotoOutcome = { attached: number; notAttached: number; notTaken: boolean };

/** POST /api/contact answers 201 with this (the spec's fields, plus `photos` when tokens were sent). */
export type ContactAccepted = { message: string; id?: string; photos?: PhotoOutcome };
