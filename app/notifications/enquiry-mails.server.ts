import type { ContactSubmission } from "~/notifications/enquiry-fields";
import { photosNotAttachedLine } from "~/enquiry-photos/enquiry-photos";
import { identity } from "~/identity";
import { plural } from "~/lib/plural";
import { digestParts, enquiryParts, type EnquiryDetails } from "./enquiry-mail-templates.server";
import type { MailParts } from "./mail-layout.server";
import { singleLine, type MailAttachment, type OutgoingMail } from "./mailer.server";
import { AUTOMATED, businessTime, ownerMail, sender, type MailContext } from "./messages.server";

/** The e-mails about enquiries (alone, or in the hourly digest of decision 0021) and their photo lines. */

/** The admin's inbox: where every enquiry, and every photo, can be seen. */
const inboxLink = (ctx: MailContext) => `${ctx.siteUrl}/admin?view=submissions`;

/** The enquiry's photos as its e-mail carries them; `unreadable` could not be read when it was sent (deleted meanwhile). */
export type MailedPhotos = { attachments: MailAttachment[]; unreadable: number };
const NO_PHOTOS: MailedPhotos = { attachments: [], unreadable: 0 };

/** Lines on attached, unreadable and never-received photos; empty without photos. */
function attachedPhotosLines(photos: MailedPhotos, notAttached = 0): string[] {
  const attached = photos.attachments.length;
  const lines: string[] = [];
  if (attached > 0) lines.push(`${plural(attached, "photo is", "photos are")} attached.`);
  if (photos.unreadable > 0) {
    const one = photos.unreadable === 1;
    lines.push(
      `Could not attach ${plural(photos.unreadable, "photo", "photos")} (${one ? "it" : "they"} could not be read; ` +
        `${one ? "it" : "they"} may have been deleted).`,
    );
  }
  if (notAttached > 0) lines.push(photosNotAttachedLine(notAttached));
  return lines;
}

/** A digest carries no photos: "3 photos: see them in the inbox: <link>". */
function digestPhotosLine(ctx: MailContext, count: number): string | null {
  if (count === 0) return null;
  return `${plural(count, "photo", "photos")}: see ${count === 1 ? "it" : "them"} in the inbox: ${inboxLink(ctx)}`;
}

/** A dialable tel: link from what a visitor typed, or null when it is not a number (fewer than 5 digits). */
function telLink(phone: string): string | null {
  const dialable = phone.replace(/[^\d+]/g, "");
  return dialable.replace(/\D/g, "").length >= 5 ? `tel:${dialable}` : null;
}

/** Name, e-mail and phone are one-line fields: a stray line break is shown as a space. */
function detailsOf(enquiry: ContactSubmission): EnquiryDetails {
  const phone = enquiry.phone === null ? null : singleLine(enquiry.phone);
  return {
    name: singleLine(enquiry.name),
    email: singleLine(enquiry.email),
    phone,
    tel: phone ? telLink(phone) : null,
    received: businessTime(enquiry.submittedAt),
    message: enquiry.message,
  };
}

/** One enquiry, with Reply-To set to the visitor, and its photos attached. */
export function enquiryMail(
  ctx: MailContext,
  received: ContactSubmission,
  messageId: string,
  photos: MailedPhotos = NO_PHOTOS,
): OutgoingMail {
  const enquiry = detailsOf(received);
  const parts = enquiryParts({
    subject: `New enquiry from ${enquiry.name}`,
    intro: `New enquiry from the ${identity.businessName} website.`,
    enquiry,
    photoLines: attachedPhotosLines(photos, received.photosNotAttached),
    inboxUrl: inboxLink(ctx),
  });
  return replyableMail(ctx, enquiry, parts, messageId, photos);
}

/** A mail about a visitor's enquiry: Reply answers the visitor; the photos go as attachments. */
function replyableMail(
  ctx: MailContext,
  visitor: EnquiryDetails,
  parts: MailParts,
  messageId: string,
  photos: MailedPhotos,
): OutgoingMail {
  const replyTo = { name: visitor.name, address: visitor.email };
  return {
    from: sender(ctx),
    to: ctx.to,
    replyTo,
    ...parts,
    messageId,
    headers: AUTOMATED,
    attachments: photos.attachments,
  };
}

/** "2 more photos from Aroha": a repeat of an enquiry brought them after its own mail had gone; the enquiry again, for which one. */
export function morePhotosMail(
  ctx: MailContext,
  received: ContactSubmission,
  messageId: string,
  photos: MailedPhotos,
): OutgoingMail {
  const visitor = detailsOf(received);
  const more = plural(photos.attachments.length + photos.unreadable, "more photo", "more photos");
  const parts = enquiryParts({
    subject: `${more} from ${visitor.name}`,
    intro: `${visitor.name} sent this enquiry again, with ${more}.`,
    enquiry: visitor,
    photoLines: attachedPhotosLines(photos, received.photosNotAttached),
    inboxUrl: inboxLink(ctx),
  });
  return replyableMail(ctx, visitor, parts, messageId, photos);
}

/** The hour's held-back enquiries in one mail, without photos (30 enquiries' worth would not fit). */
export function digestMail(
  ctx: MailContext,
  received: ContactSubmission[],
  hourStart: string,
  messageId: string,
  photoCounts: ReadonlyMap<string, number> = new Map(),
): OutgoingMail {
  const count = received.length;
  const parts = digestParts({
    subject: `${count} more ${count === 1 ? "enquiry" : "enquiries"} from the website`,
    why:
      "More enquiries than usual arrived in one hour, so to protect your e-mail account's sending limit " +
      `the rest of that hour's are collected in this one e-mail (the hour from ${businessTime(hourStart)}).`,
    enquiries: received.map((enquiry) => ({
      details: detailsOf(enquiry),
      photos: digestPhotosLine(ctx, photoCounts.get(enquiry.id) ?? 0),
    })),
    inboxUrl: inboxLink(ctx),
  });
  return ownerMail(ctx, parts, messageId);
}
