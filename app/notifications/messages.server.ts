import { formatSubmittedAt } from "~/lib/format-date";
import { TWO_STEP_LOST_IN_RESTORE } from "~/auth/sign-in-methods";
import { identity } from "~/identity";
import { describeBrowser } from "~/lib/browser-name";
import { DETAILS_HEADING } from "~/lib/plain-words";
import type { OutgoingMail } from "./mailer.server";
import type { MailAddress } from "./smtp-settings";

/**
 * The notification e-mails: pure functions from data to an OutgoingMail. The
 * enquiry e-mail and the digest are in enquiry-mails.server.ts.
 * Visitor text is escaped in the HTML; header fields are made single-line
 * again by the mail adapter, and the recipient is never taken from visitor text.
 */

export type MailContext = {
  from: MailAddress;
  to: string;
  /** SITE_URL, for the link to the admin. */
  siteUrl: string;
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** "<enquiry-<id>@<domain of MAIL_FROM>>"; a manual resend adds its own suffix (providers drop repeats). */
export function enquiryMessageId(submissionId: string, from: MailAddress, resend?: string): string {
  return `<enquiry-${submissionId}${resend ? `.${resend}` : ""}@${domainOf(from)}>`;
}

export function messageIdFor(kind: string, id: string, from: MailAddress): string {
  return `<${kind}-${id}@${domainOf(from)}>`;
}

function domainOf(from: MailAddress): string {
  return from.address.slice(from.address.lastIndexOf("@") + 1).replace(/[^\w.-]/g, "") || "localhost";
}

/** The sender as the owner sees it: MAIL_FROM's own name, else "<business> website". */
export function sender(ctx: MailContext): MailAddress {
  return { name: ctx.from.name ?? `${identity.businessName} website`, address: ctx.from.address };
}

/** 'January 1st, 2024 at 3:00 PM (New Zealand Daylight Time)', in the business's time zone. */
export function businessTime(iso: string): string {
  const zoneName =
    new Intl.DateTimeFormat("en-US", { timeZone: identity.timeZone, timeZoneName: "long" })
      .formatToParts(new Date(iso))
      .find((part) => part.type === "timeZoneName")?.value ?? identity.timeZone;
  return `${formatSubmittedAt(iso, { timeZone: identity.timeZone })} (${zoneName})`;
}

export const STYLE = {
  body: "margin:0;padding:24px;background:#f5f5f4;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1c1917;",
  card: "max-width:600px;margin:0 auto;background:#ffffff;border-radius:12px;padding:24px;",
  label: "padding:6px 16px 6px 0;vertical-align:top;font-weight:600;color:#57534e;white-space:nowrap;",
  value: "padding:6px 0;vertical-align:top;",
  message: "white-space:pre-wrap;word-wrap:break-word;margin:8px 0 0;font-size:16px;line-height:1.5;",
  link: "color:#9a3412;",
};

export function htmlDocument(title: string, inner: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title></head><body style="${STYLE.body}"><div style="${STYLE.card}">${inner}</div></body></html>`
  );
}

export const AUTOMATED = { "Auto-Submitted": "auto-generated" };

export type SignInForMail = { at: string; address: string; userAgent: string };

/** The browser in e-mails: the shared describer's words, or "an unknown browser". */
export const browserForMail = (userAgent: string) => describeBrowser(userAgent) ?? "an unknown browser";

/** A sign-in from a browser that had not signed in before. */
export function signInAlertMail(ctx: MailContext, signIn: SignInForMail, messageId: string): OutgoingMail {
  const subject = `New sign-in to the ${identity.businessName} website admin`;
  const browser = browserForMail(signIn.userAgent);
  const lead = "Someone signed in to the website admin from a browser that had not signed in before.";
  const advice =
    "If this was you, there is nothing to do. If it was not, change the admin password now " +
    "(npm run admin:password on the server): that signs out every session.";
  const lines = [`Time:    ${businessTime(signIn.at)}`, `Browser: ${browser}`];
  // The address and the browser's own words are for whoever runs the website, as on the dashboard.
  const details = [`Address:    ${signIn.address}`, `User agent: ${signIn.userAgent || "(none given)"}`];
  const text = [lead, "", ...lines, "", advice, "", `${DETAILS_HEADING}:`, ...details, ""].join("\n");
  const row = (label: string, value: string) =>
    `<tr><th scope="row" style="${STYLE.label}" align="left">${label}</th><td style="${STYLE.value}">${value}</td></tr>`;
  const html = htmlDocument(
    subject,
    `<h1 style="margin:0 0 16px;font-size:22px;">${escapeHtml(subject)}</h1>` +
      `<p style="margin:0 0 16px;">${escapeHtml(lead)}</p>` +
      `<table role="presentation" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-size:16px;">` +
      row("Time", escapeHtml(businessTime(signIn.at))) +
      row("Browser", escapeHtml(browser)) +
      `</table><p style="margin:16px 0;">${escapeHtml(advice)}</p>` +
      `<p style="margin:0;font-weight:600;color:#57534e;">${DETAILS_HEADING}</p>` +
      `<p style="${STYLE.message}">${escapeHtml(details.join("\n"))}</p>`,
  );
  return { from: sender(ctx), to: ctx.to, replyTo: null, subject, text, html, messageId, headers: AUTOMATED };
}

/** The dashboard's Send test e-mail. */
export function testMail(ctx: MailContext, sentAt: string, messageId: string): OutgoingMail {
  const subject = `Test e-mail from the ${identity.businessName} website`;
  const body = `This is a test, sent from the admin at ${businessTime(sentAt)}. It arrived, so new enquiries will be e-mailed to ${ctx.to}.`;
  return {
    from: sender(ctx),
    to: ctx.to,
    replyTo: null,
    subject,
    text: `${body}\n`,
    html: htmlDocument(subject, `<h1 style="margin:0 0 16px;font-size:22px;">${escapeHtml(subject)}</h1><p>${escapeHtml(body)}</p>`),
    messageId,
    headers: AUTOMATED,
  };
}

/** Off-site copies failing for 3 hours; one per outage (app/backups/offsite-copy.server.ts queues it). */
export const OFFSITE_FAILING_KIND = "offsite-failing";

export type OffsiteFailingForMail = { failures: number; lastCopyAt: string | null; where: string; message: string };

/** The owner's words first; the detail is for whoever runs the website. Reads its payload leniently. */
export function offsiteFailingMail(ctx: MailContext, payload: unknown, messageId: string): OutgoingMail {
  const given = (payload ?? {}) as Partial<OffsiteFailingForMail>;
  const lastCopyAt = typeof given.lastCopyAt === "string" ? given.lastCopyAt : null;
  const subject = `Backups of the ${identity.businessName} website are not leaving the server`;
  const lead =
    "Your website could not copy its backups off the server for the last three hours. " +
    "Your backups are still made on the server, but a copy elsewhere is what saves your website if the server is lost. " +
    "Ask whoever runs your website to look at it.";
  const since = lastCopyAt ? `The last copy kept off the server was made ${businessTime(lastCopyAt)}.` : "No copy has been kept off the server yet.";
  const details = [
    `Failed copies in a row: ${typeof given.failures === "number" ? given.failures : "several"}`,
    `Where: ${typeof given.where === "string" ? given.where : "the off-site bucket (BACKUP_S3_BUCKET)"}`,
    `Last error: ${typeof given.message === "string" ? given.message : "(not recorded)"}`,
  ];
  const text = [lead, "", since, "", `${DETAILS_HEADING}:`, ...details, "", `Dashboard: ${ctx.siteUrl}/admin`, ""].join("\n");
  const html = htmlDocument(
    subject,
    `<h1 style="margin:0 0 16px;font-size:22px;">${escapeHtml(subject)}</h1>` +
      `<p style="margin:0 0 16px;">${escapeHtml(lead)}</p><p style="margin:0 0 16px;">${escapeHtml(since)}</p>` +
      `<p style="margin:0;font-weight:600;color:#57534e;">${DETAILS_HEADING}</p>` +
      `<p style="${STYLE.message}">${escapeHtml(details.join("\n"))}</p>` +
      `<p style="margin:16px 0 0;"><a style="${STYLE.link}" href="${escapeHtml(`${ctx.siteUrl}/admin`)}">Open the dashboard</a></p>`,
  );
  return { from: sender(ctx), to: ctx.to, replyTo: null, subject, text, html, messageId, headers: AUTOMATED };
}

/** A change to how the admin is signed in to, or to where the owner's e-mails go. */
export type SecurityNoticeKind =
  | "passkey-added"
  | "passkey-removed"
  | "two-step-on"
  | "two-step-off"
  | "two-step-lost-in-restore"
  | "recovery-codes-renewed"
  | "password-changed"
  | "recovery-code-used"
  | "contact-email-changed";
export type SecurityNotice = {
  kind: SecurityNoticeKind;
  at: string;
  /** The browser that made the change; empty when it was made on the server. */
  userAgent: string;
  passkeyName?: string;
  /** passkey-removed: every passkey removed at once ("Sign out everywhere" may remove several). */
  passkeyNames?: string[];
  /** contact-email-changed: the address before and after. */
  previousAddress?: string;
  newAddress?: string;
};

/** The passkeys a notice names: "Mark's iPhone", or "Mark's iPhone" and "Work laptop". */
function passkeyList(notice: SecurityNotice): string {
  const names = (notice.passkeyNames?.length ? notice.passkeyNames : [notice.passkeyName ?? "unnamed"]).map((name) => `"${name}"`);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0]!;
}

/** "npm run admin:password" and friends, for the owner to pass on. */
const RESET_BY_SERVER =
  "run npm run admin:password -- --reset-2fa on the server (it turns two-step off and removes every passkey), then npm run admin:password to set a new password and sign everyone out.";

const SECURITY_NOTICES: Record<SecurityNoticeKind, { subject: string; what: (notice: SecurityNotice) => string; ifNotYou: string }> = {
  "passkey-added": {
    subject: "A passkey was added to the website admin",
    what: (notice) => `A new passkey, "${notice.passkeyName ?? "unnamed"}", can now sign in to the website admin.`,
    ifNotYou:
      "If this was not you: sign in, remove that passkey under Your Account, and change the password. If you cannot sign in, run npm run admin:password -- --reset-2fa on the server, then npm run admin:password.",
  },
  "passkey-removed": {
    subject: "A passkey was removed from the website admin",
    what: (notice) =>
      (notice.passkeyNames?.length ?? 1) > 1
        ? `These passkeys can no longer sign in to the website admin: ${passkeyList(notice)}.`
        : `The passkey ${passkeyList(notice)} can no longer sign in to the website admin.`,
    ifNotYou: `If this was not you: someone is signed in as you. Use Sign Out Everywhere under Your Account and change the password. If you cannot sign in, ${RESET_BY_SERVER}`,
  },
  "two-step-on": {
    subject: "Two-step verification was turned on for the website admin",
    what: () => "Two-step verification was turned on: signing in with the password now also needs a code from an authenticator app.",
    ifNotYou: `If this was not you: someone is signed in as you, and the codes are now on their phone. ${RESET_BY_SERVER.replace(/^run/, "Run")}`,
  },
  "two-step-off": {
    subject: "Two-step verification was turned off for the website admin",
    what: () => "Two-step verification was turned off: the password alone now signs in to the website admin.",
    ifNotYou:
      "If this was not you: change the password now (npm run admin:password on the server signs out every session), then turn two-step verification on again.",
  },
  "two-step-lost-in-restore": {
    subject: "Two-step verification was turned off when the website was restored",
    what: () =>
      `${TWO_STEP_LOST_IN_RESTORE} The backup was not encrypted, so it could not carry the key two-step verification needs: the password alone now signs in to the website admin.`,
    ifNotYou:
      "If nobody you know restored the website: someone with access to the server did. Ask whoever runs the website, change the password, and turn two-step verification on again under Your Account.",
  },
  "recovery-codes-renewed": {
    subject: "New recovery codes were made for the website admin",
    what: () => "New two-step recovery codes were made for the website admin; the old ones no longer work.",
    ifNotYou:
      "If this was not you: someone is signed in as you. Use Sign Out Everywhere under Your Account, change the password, and make new recovery codes.",
  },
  "password-changed": {
    subject: "The website admin password was changed",
    what: () => "The password of the website admin was changed, and every other session was signed out.",
    ifNotYou: "If this was not you: run npm run admin:password on the server to set a new password and sign everyone out.",
  },
  "recovery-code-used": {
    subject: "A recovery code was used to sign in to the website admin",
    what: () => "Someone signed in to the website admin with the password and one of the two-step recovery codes. That code is now used up.",
    ifNotYou:
      "If this was not you: your password and recovery codes are known to someone else. Change the password (npm run admin:password on the server) and make new recovery codes under Your Account.",
  },
  "contact-email-changed": {
    subject: "The website's contact e-mail address was changed",
    what: (notice) =>
      `The website's contact e-mail address was changed from ${notice.previousAddress ?? "(none)"} to ${notice.newAddress ?? "(none)"}. ` +
      "Visitors see the new one, and unless the server sets NOTIFY_EMAIL, the website's e-mails go to it now.",
    ifNotYou:
      "If this was not you: someone is signed in as you. Sign in, put the address back under Edit Website Text, use Sign Out Everywhere under Your Account, and change the password.",
  },
};

export function securityNoticeMail(ctx: MailContext, notice: SecurityNotice, messageId: string): OutgoingMail {
  const { subject, what, ifNotYou } = SECURITY_NOTICES[notice.kind];
  const lines = [`Time:    ${businessTime(notice.at)}`, notice.userAgent ? `Browser: ${browserForMail(notice.userAgent)}` : "Where:   on the server"];
  const text = [what(notice), "", ...lines, "", "If this was you, there is nothing to do.", ifNotYou, ""].join("\n");
  const html = htmlDocument(
    subject,
    `<h1 style="margin:0 0 16px;font-size:22px;">${escapeHtml(subject)}</h1>` +
      `<p style="margin:0 0 16px;">${escapeHtml(what(notice))}</p>` +
      `<p style="margin:0 0 16px;">${lines.map(escapeHtml).join("<br>")}</p>` +
      `<p style="margin:0 0 8px;">If this was you, there is nothing to do.</p><p style="margin:0;"><strong>${escapeHtml(ifNotYou)}</strong></p>`,
  );
  return { from: sender(ctx), to: ctx.to, replyTo: null, subject, text, html, messageId, headers: AUTOMATED };
}
