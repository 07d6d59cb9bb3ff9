/**
 * A no-JavaScript post goes to `/contact#contact-result`, so the answer opens at the result box (the URL's target,
 * tabindex=-1). A stored enquiry gets a 303 to SENT_PATH (a reload sends nothing again), no cookie: the query says.
 */
export const CONTACT_RESULT_ID = "contact-result";

export const CONTACT_FORM_ACTION = `/contact#${CONTACT_RESULT_ID}`;

/** What the photos of a no-JS post came to (server/middleware/contact-multipart.ts); the contact route's action reads it. */
export type ContactPhotosOutcome =
  | { status: "accepted"; tokens: string[] }
  /** Nothing is stored; the form comes back with its text and these reasons. */
  | { status: "refused"; httpStatus: number; messages: string[]; retryAfterSeconds?: number };

declare module "react-router" {
  interface AppLoadContext {
    /** Set for a multipart post to /contact. */
    contactPhotos?: ContactPhotosOutcome;
  }
}

const SENT_PARAM = "sent";
const PHOTOS_PARAM = "photos";
const PHOTOS_NOT_TAKEN = "not-taken";
const NOT_ATTACHED_PARAM = "not-attached";

/** What the page after a send says of its photos: a cap kept some out, and how many others did not go with it. */
export type SentPhotos = { notTaken: boolean; notAttached: number };

/** Where a stored no-JS enquiry is redirected, with what became of its photos. */
export function contactSentLocation(photos?: SentPhotos): string {
  const query = new URLSearchParams({ [SENT_PARAM]: "1" });
  if (photos?.notTaken) query.set(PHOTOS_PARAM, PHOTOS_NOT_TAKEN);
  if (photos?.notAttached) query.set(NOT_ATTACHED_PARAM, String(photos.notAttached));
  return `/contact?${query}#${CONTACT_RESULT_ID}`;
}

/** What the redirected page shows: null when the URL does not say an enquiry was sent. */
export function sentFromUrl(url: URL): SentPhotos | null {
  if (url.searchParams.get(SENT_PARAM) !== "1") return null;
  const notAttached = Number(url.searchParams.get(NOT_ATTACHED_PARAM));
  return {
    notTaken: url.searchParams.get(PHOTOS_PARAM) === PHOTOS_NOT_TAKEN,
    // At most 5 photos go with an enquiry: anything else in the address is not ours.
    notAttached: Number.isInteger(notAttached) && notAttached > 0 && notAttached <= 5 ? notAttached : 0,
  };
}
