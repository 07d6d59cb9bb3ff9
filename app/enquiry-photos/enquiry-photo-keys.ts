/**
 * Where an enquiry photo's kept copies live, and what processing one gives
 * back: shared by the web process and the image worker without loading sharp.
 */

/** Private: never served by /media or MEDIA_BASE_URL, covered by the bucket privacy probe. */
export const ENQUIRY_PHOTO_PREFIX = "enquiry-photos/";

/** The two kept copies of the photo with this row id (keys are derived, so a crashed job's files can be found). */
export function enquiryPhotoKeys(photoId: string): { thumbKey: string; viewKey: string } {
  return { thumbKey: `${ENQUIRY_PHOTO_PREFIX}${photoId}-thumb.jpg`, viewKey: `${ENQUIRY_PHOTO_PREFIX}${photoId}-view.jpg` };
}

export type ProcessedEnquiryPhoto = {
  /** The viewing copy's size. */
  width: number;
  height: number;
  thumbBytes: number;
  viewBytes: number;
};
