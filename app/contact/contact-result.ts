/**
 * Where the contact form's answer is shown: the result box at the top of the form. A no-JavaScript
 * post goes to `/contact#contact-result`, so the page that answers it opens at the box, which the
 * browser focuses (it is the URL's target and has tabindex=-1). A stored enquiry is answered with a
 * 303 to SENT_PATH (post, redirect, get: a reload sends nothing again), with no cookie: the query
 * says what to show.
 */
export const CONTACT_RESULT_ID = "contact-result";

export const CONTACT_FORM_ACTION = `/contact#${CONTACT_RESULT_ID}`;

const SENT_PARAM = "sent";
const PHOTOS_PARAM = "photos";
const PHOTOS_NOT_TAKEN = "not-taken";

/** Where a stored no-JS enquiry is redirected: `photosNotTaken` when a cap kept its photos out. */
export function contactSentLocation(photosNotTaken: boolean): string {
  const query = new URLSearchParams({ [SENT_PARAM]: "1" });
  if (photosNotTaken) query.set(PHOTOS_PARAM, PHOTOS_NOT_TAKEN);
  return `/contact?${query}#${CONTACT_RESULT_ID}`;
}

/** What the redirected page shows: null when the URL does not say an enquiry was sent. */
export function sentFromUrl(url: URL): { photosNotTaken: boolean } | null {
  if (url.searchParams.get(SENT_PARAM) !== "1") return null;
  return { photosNotTaken: url.searchParams.get(PHOTOS_PARAM) === PHOTOS_NOT_TAKEN };
}
