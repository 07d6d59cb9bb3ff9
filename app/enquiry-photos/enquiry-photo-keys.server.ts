import { ENQUIRY_PHOTO_PREFIX } from "~/storage/storage-keys.server";

/** The two kept copies of the photo with this row id (keys are derived, so a crashed job's files can be found). */
export function enquiryPhotoKeys(photoId: string): { thumbKey: string; viewKey: string } {
  return {
    thumbKey: `${ENQUIRY_PHOTO_PREFIX}${photoId}-thumb.jpg`,
    viewKey: `${ENQUIRY_PHOTO_PREFIX}${photoId}-view.jpg`,
  };
}
