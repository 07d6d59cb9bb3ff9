import type { ContactSubmission } from "~/contact/contact-fields";
import { identity } from "~/identity";
import { plural } from "~/lib/plural";
import { singleLine, type MailAttachment, type OutgoingMail } from "./mailer.server";
import { AUTOMATED, businessTime, escapeHtml, htmlDocument, sender, STYLE, type MailContext } from "./messages.server";

/**
 * The e-mails about enquiries (each on its own, or in the hourly digest of decision 0021),
 * and what they say about the visitor's photos: the enquiry
 * e-mail carries them as attachments, the digest links to the inbox instead.
 */

/** The admin's inbox: where every enquiry, and every photo, can be seen. */
export const inboxLink = (ctx: MailContext) => `${ctx.siteUrl}/admin?view=submissions`;

/** The enquiry's photos as its e-mail carries them; `unreadable` could not be read when it was sent (deleted meanwhile). */
export type MailedPhotos = { attachments: MailAttachment[]; unreadable: number };
const NO_PHOTOS: MailedPhotos = { attachments: [], unreadable: 0 };

/** "2 photos are attached." and/or "Could not attach 1 photo (…)"; empty without photos. */
export function attachedPhotosLines(photos: MailedPhotos): string[] {
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
  return lines;
}

/** A digest carries no photos: "3 photos: see them in the inbox: <link>". */
export function digestPhotosLine(ctx: MailContext, count: number): string | null {
  if (count === 0) return null;
  return `${plural(count, "photo", "photos")}: see ${count === 1 ? "it" : "them"} in the inbox: ${inboxLink(ctx)}`;
}

/** A dialable tel: link from what a visitor typed, or null when it is not a number (fewer than 5 digits). */
function telLink(phone: string): string | null {
  const dialable = phone.replace(/[^\d+]/g, "");
  return dialable.replace(/\D/g, "").length >= 5 ? `tel:${dialable}` : null;
}

const heading = (subject: string) => `<h1 style="margin:0 0 16px;font-size:22px;">${escapeHtml(subject)}</h1>`;
const allEnquiriesLink = (ctx: MailContext) =>
  `<p style="margin:8px 0 0;"><a style="${STYLE.link}" href="${escapeHtml(inboxLink(ctx))}">See all enquiries in the admin</a></p>`;
const note = (text: string) => `<p style="margin:16px 0 0;font-weight:600;">${escapeHtml(text)}</p>`;

function enquiryRows(enquiry: ContactSubmission): string {
  const tel = enquiry.phone ? telLink(enquiry.phone) : null;
  const row = (label: string, value: string) =>
    `<tr><th scope="row" style="${STYLE.label}" align="left">${label}</th><td style="${STYLE.value}">${value}</td></tr>`;
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-size:16px;">` +
    row("Name", escapeHtml(enquiry.name)) +
    row("Email", `<a style="${STYLE.link}" href="${escapeHtml(`mailto:${enquiry.email}`)}">${escapeHtml(enquiry.email)}</a>`) +
    (enquiry.phone
      ? row("Phone", tel ? `<a style="${STYLE.link}" href="${escapeHtml(tel)}">${escapeHtml(enquiry.phone)}</a>` : escapeHtml(enquiry.phone))
      : "") +
    row("Received", escapeHtml(businessTime(enquiry.submittedAt))) +
    `</table>` +
    `<p style="margin:20px 0 0;font-weight:600;color:#57534e;">Message</p>` +
    `<p style="${STYLE.message}">${escapeHtml(enquiry.message)}</p>`
  );
}

function enquiryLines(enquiry: ContactSubmission): string[] {
  return [
    `Name:     ${enquiry.name}`,
    `Email:    ${enquiry.email}`,
    ...(enquiry.phone ? [`Phone:    ${enquiry.phone}${telLink(enquiry.phone) ? ` (${telLink(enquiry.phone)})` : ""}`] : []),
    `Received: ${businessTime(enquiry.submittedAt)}`,
    "",
    "Message:",
    enquiry.message,
  ];
}

/** Name, e-mail and phone are one-line fields: a stray line break is shown as a space. */
function oneLineFields(enquiry: ContactSubmission): ContactSubmission {
  return { ...enquiry, name: singleLine(enquiry.name), email: singleLine(enquiry.email), phone: enquiry.phone === null ? null : singleLine(enquiry.phone) };
}

/** One enquiry, with Reply-To set to the visitor, and its photos attached. */
export function enquiryMail(ctx: MailContext, received: ContactSubmission, messageId: string, photos: MailedPhotos = NO_PHOTOS): OutgoingMail {
  const enquiry = oneLineFields(received);
  const subject = `New enquiry from ${enquiry.name}`;
  const photoLines = attachedPhotosLines(photos);
  const text = [
    `New enquiry from the ${identity.businessName} website.`,
    "",
    ...enquiryLines(enquiry),
    "",
    ...(photoLines.length > 0 ? [...photoLines, ""] : []),
    `Press Reply to answer ${enquiry.name} directly.`,
    `All enquiries: ${inboxLink(ctx)}`,
    "",
  ].join("\n");
  const html = htmlDocument(
    subject,
    heading(subject) +
      enquiryRows(enquiry) +
      photoLines.map(note).join("") +
      `<p style="margin:24px 0 0;color:#57534e;">Press Reply to answer ${escapeHtml(enquiry.name)} directly.</p>` +
      allEnquiriesLink(ctx),
  );
  return {
    from: sender(ctx),
    to: ctx.to,
    replyTo: { name: enquiry.name, address: enquiry.email },
    subject,
    text,
    html,
    messageId,
    headers: AUTOMATED,
    attachments: photos.attachments,
  };
}

/**
 * The hourly cap's digest: every enquiry held back in one clock hour, in one
 * mail. It carries no photos (up to 30 enquiries' worth would not fit a
 * mailbox): `photoCounts` (by enquiry id) sends the owner to the inbox.
 */
export function digestMail(
  ctx: MailContext,
  received: ContactSubmission[],
  hourStart: string,
  messageId: string,
  photoCounts: ReadonlyMap<string, number> = new Map(),
): OutgoingMail {
  const enquiries = received.map(oneLineFields);
  const count = enquiries.length;
  const subject = `${count} more ${count === 1 ? "enquiry" : "enquiries"} from the website`;
  const why =
    "More enquiries than usual arrived in one hour, so to protect your e-mail account's sending limit " +
    `the rest of that hour's are collected in this one e-mail (the hour from ${businessTime(hourStart)}).`;
  const photosLine = (enquiry: ContactSubmission) => digestPhotosLine(ctx, photoCounts.get(enquiry.id) ?? 0);
  const text = [
    subject,
    "",
    why,
    "",
    ...enquiries.flatMap((enquiry, i) => {
      const photos = photosLine(enquiry);
      return [`--- ${i + 1} of ${count} ---`, ...enquiryLines(enquiry), ...(photos ? ["", photos] : []), ""];
    }),
    `All enquiries: ${inboxLink(ctx)}`,
    "",
  ].join("\n");
  const html = htmlDocument(
    subject,
    heading(subject) +
      `<p style="margin:0 0 16px;color:#57534e;">${escapeHtml(why)}</p>` +
      enquiries
        .map((enquiry) => {
          const photos = photosLine(enquiry);
          const link = photos
            ? `<p style="margin:16px 0 0;font-weight:600;"><a style="${STYLE.link}" href="${escapeHtml(inboxLink(ctx))}">${escapeHtml(photos)}</a></p>`
            : "";
          return `<div style="border-top:1px solid #e7e5e4;padding:16px 0;">${enquiryRows(enquiry)}${link}</div>`;
        })
        .join("") +
      allEnquiriesLink(ctx),
  );
  return { from: sender(ctx), to: ctx.to, replyTo: null, subject, text, html, messageId, headers: AUTOMATED };
}
