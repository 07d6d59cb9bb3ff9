import { formatSubmittedAt } from "~/lib/format-date";
import { TWO_STEP_LOST_IN_RESTORE } from "~/notifications/two-step-lost";
import { identity } from "~/identity";
import { describeBrowser } from "~/lib/browser-name";
import type { MailParts } from "./mail-layout.server";
import type { OutgoingMail } from "./mailer.server";
import { offsiteFailingParts, securityNoticeParts, signInAlertParts, testMailParts } from "./message-templates.server";
import type { MailAddress } from "./smtp-settings";

/**
 * The notification e-mails, data → OutgoingMail (templates in message-templates.server.tsx). Header fields are
 * made single-line by the mail adapter; the recipient is never taken from visitor text.
 */

export type MailContext = {
  from: MailAddress;
  to: string;
  /** SITE_URL, for the link to the admin. */
  siteUrl: string;
};

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

export const AUTOMATED = { "Auto-Submitted": "auto-generated" };

/** A mail to the owner, automated, that no one replies to. */
export function ownerMail(ctx: MailContext, parts: MailParts, messageId: string): OutgoingMail {
  return { from: sender(ctx), to: ctx.to, replyTo: null, ...parts, messageId, headers: AUTOMATED };
}

export type SignInForMail = { at: string; address: string; userAgent: string };

/** The browser in e-mails: the shared describer's words, or "an unknown browser". */
const browserForMail = (userAgent: string) => describeBrowser(userAgent) ?? "an unknown browser";

/** A sign-in from a browser that had not signed in before. */
export function signInAlertMail(ctx: MailContext, signIn: SignInForMail, messageId: string): OutgoingMail {
  const alert = signInAlertParts({
    subject: `New sign-in to the ${identity.businessName} website admin`,
    lead: "Someone signed in to the website admin from a browser that had not signed in before.",
    time: businessTime(signIn.at),
    browser: browserForMail(signIn.userAgent),
    advice:
      "If this was you, there is nothing to do. If it was not, change the admin password now " +
      "(npm run admin:password on the server): that signs out every session.",
    // The address and the browser's own words are for whoever runs the website, as on the dashboard.
    details: [`Address:    ${signIn.address}`, `User agent: ${signIn.userAgent || "(none given)"}`],
  });
  return ownerMail(ctx, alert, messageId);
}

/** The dashboard's Send test e-mail. */
export function testMail(ctx: MailContext, sentAt: string, messageId: string): OutgoingMail {
  const test = testMailParts({
    subject: `Test e-mail from the ${identity.businessName} website`,
    body: `This is a test, sent from the admin at ${businessTime(sentAt)}. It arrived, so new enquiries will be e-mailed to ${ctx.to}.`,
  });
  return ownerMail(ctx, test, messageId);
}

/** Off-site copies failing for 3 hours; one per outage (app/backups/offsite-schedule.server.ts queues it). */
export const OFFSITE_FAILING_KIND = "offsite-failing";

export type OffsiteFailingForMail = { failures: number; lastCopyAt: string | null; where: string; message: string };

/** The owner's words first; the detail is for whoever runs the website. Reads its payload leniently. */
export function offsiteFailingMail(ctx: MailContext, payload: unknown, messageId: string): OutgoingMail {
  const given = (payload ?? {}) as Partial<OffsiteFailingForMail>;
  const lastCopyAt = typeof given.lastCopyAt === "string" ? given.lastCopyAt : null;
  const alert = offsiteFailingParts({
    subject: `Backups of the ${identity.businessName} website are not leaving the server`,
    lead:
      "Your website could not copy its backups off the server for the last three hours. " +
      "Your backups are still made on the server, but a copy elsewhere is what saves your website if the server is lost. " +
      "Ask whoever runs your website to look at it.",
    since: lastCopyAt
      ? `The last copy kept off the server was made ${businessTime(lastCopyAt)}.`
      : "No copy has been kept off the server yet.",
    details: [
      `Failed copies in a row: ${typeof given.failures === "number" ? given.failures : "several"}`,
      `Where: ${typeof given.where === "string" ? given.where : "the off-site bucket (BACKUP_S3_BUCKET)"}`,
      `Last error: ${typeof given.message === "string" ? given.message : "(not recorded)"}`,
    ],
    dashboardUrl: `${ctx.siteUrl}/admin`,
  });
  return ownerMail(ctx, alert, messageId);
}

/** The changes to how the admin is signed in to, or to where the owner's e-mails go, that the owner is told of. */
export const SECURITY_NOTICE_KINDS = [
  "passkey-added",
  "passkey-removed",
  "two-step-on",
  "two-step-off",
  "two-step-lost-in-restore",
  "recovery-codes-renewed",
  "password-changed",
  "recovery-code-used",
  "contact-email-changed",
] as const;
export type SecurityNoticeKind = (typeof SECURITY_NOTICE_KINDS)[number];
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
  const names = (notice.passkeyNames?.length ? notice.passkeyNames : [notice.passkeyName ?? "unnamed"]).map(
    (name) => `"${name}"`,
  );
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0]!;
}

/** "npm run admin:password" and friends, for the owner to pass on. */
const RESET_BY_SERVER =
  "run npm run admin:password -- --reset-2fa on the server (it turns two-step off and removes every passkey), then npm run admin:password to set a new password and sign everyone out.";

const SECURITY_NOTICES: Record<
  SecurityNoticeKind,
  { subject: string; what: (notice: SecurityNotice) => string; ifNotYou: string }
> = {
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
    what: () =>
      "Two-step verification was turned on: signing in with the password now also needs a code from an authenticator app.",
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
    ifNotYou:
      "If this was not you: run npm run admin:password on the server to set a new password and sign everyone out.",
  },
  "recovery-code-used": {
    subject: "A recovery code was used to sign in to the website admin",
    what: () =>
      "Someone signed in to the website admin with the password and one of the two-step recovery codes. That code is now used up.",
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
  const parts = securityNoticeParts({
    subject,
    what: what(notice),
    time: businessTime(notice.at),
    browser: notice.userAgent ? browserForMail(notice.userAgent) : null,
    ifNotYou,
  });
  return ownerMail(ctx, parts, messageId);
}
