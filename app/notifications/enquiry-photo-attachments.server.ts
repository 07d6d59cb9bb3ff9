import type { Readable } from "node:stream";
import { enquiryPhotosOf, openEnquiryPhoto } from "~/enquiry-photos/enquiry-photos.server";
import type { AppServices } from "~/services.server";
import type { MailedPhotos } from "./enquiry-mails.server";

/** An enquiry's viewing copies as attachments, streamed from storage as the mail goes out. */

type Services = Pick<AppServices, "db" | "storage" | "logger">;

export type OpenedPhotos = MailedPhotos & {
  /** Lets go of every stream (file handles, S3 responses) whether or not the mail went. */
  close(): void;
};

/** "enquiry-photo-1.jpg": n counts from 1 in the order the visitor chose them. */
const attachmentName = (n: number) => `enquiry-photo-${n}.jpg`;

/** Opens each photo's viewing copy from `from` on; one that cannot be read is counted in `unreadable`. */
export async function openEnquiryPhotoAttachments(
  services: Services,
  submissionId: string,
  from = 1,
): Promise<OpenedPhotos> {
  const photos = ((await enquiryPhotosOf(services, [submissionId])).get(submissionId) ?? []).filter(
    ({ n }) => n >= from,
  );
  const streams: Readable[] = [];
  const opened: OpenedPhotos = {
    attachments: [],
    unreadable: 0,
    close: () => streams.forEach((stream) => stream.destroy()),
  };
  for (const { n } of photos) {
    const photo = await openEnquiryPhoto(services, submissionId, n, "view").catch((error: unknown) => {
      services.logger.warn({ err: error, submissionId, n }, "enquiry photo could not be read for its e-mail");
      return null;
    });
    if (!photo) {
      opened.unreadable += 1;
      continue;
    }
    // Until the mailer reads it, an error (an S3 connection reset) must not go unheard and crash the process;
    // the mailer then sees the failed stream, the send fails, and the outbox retries.
    photo.body.on("error", (error) =>
      services.logger.warn({ err: error, submissionId, n }, "enquiry photo stream failed"),
    );
    streams.push(photo.body);
    opened.attachments.push({ filename: attachmentName(n), contentType: photo.contentType, content: photo.body });
  }
  return opened;
}
