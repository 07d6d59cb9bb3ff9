import type { Readable } from "node:stream";
import type { ConnectionOptions } from "node:tls";
import nodemailer from "nodemailer";
import type { Env } from "~/env.server";
import { parseMailAddress, parseSmtpUrl, type MailAddress, type SmtpSettings } from "./smtp-settings";

/** One e-mail, ready to send. Every field is plain data; the adapter does the encoding. */
export type OutgoingMail = {
  from: MailAddress;
  /** The one recipient: it is also the whole SMTP envelope, so no header can add another. */
  to: string;
  replyTo?: MailAddress | null;
  subject: string;
  text: string;
  html: string;
  /** With angle brackets: "<enquiry-…@example.nz>". */
  messageId: string;
  headers?: Record<string, string>;
  /** Files sent with it (an enquiry's photos), streamed into the message as it goes out. */
  attachments?: MailAttachment[];
};

/** One attached file. `content` is read once, while the message is sent; the sender destroys it afterwards. */
export type MailAttachment = { filename: string; contentType: string; content: Readable };

type SentMail = { messageId: string; response: string };

/** The outside mail service, behind one small interface (tests use a real SMTP server through it). */
export interface Mailer {
  /** Resolves once the server accepted the message; rejects with the server's own error text. */
  send(mail: OutgoingMail): Promise<SentMail>;
  /** "smtp://host:587 (STARTTLS required)": for logs, never with the password. */
  readonly description: string;
}

/** A send that failed; `message` is the SMTP server's (or the network's) exact error. */
export class MailSendError extends Error {
  override name = "MailSendError";
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** Header values are one line: CR, LF and other control characters become spaces. */
export function singleLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
}

/** A plausible bare address: no spaces, control characters, angle brackets or commas. */
function isBareAddress(address: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^[^\s<>,;"\u0000-\u001f\u007f]+@[^\s<>,;"\u0000-\u001f\u007f]+$/.test(address);
}

const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000, dnsTimeout: 15_000 };

/** nodemailer; smtp:// must upgrade with STARTTLS so it cannot be stripped, except to a loopback relay. */
export function createSmtpMailer(settings: SmtpSettings, options: { tls?: ConnectionOptions } = {}): Mailer {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTls,
    // A loopback relay never leaves the machine: plain text, so a self-signed "snakeoil" certificate cannot break it.
    ignoreTLS: !settings.secure && !settings.requireTls,
    auth: settings.user !== null ? { user: settings.user, pass: settings.pass ?? "" } : undefined,
    tls: options.tls,
    ...TIMEOUTS,
  });
  const scheme = settings.secure ? "smtps" : "smtp";
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  const description =
    `${scheme}://${host}:${settings.port}` +
    (settings.secure ? " (TLS)" : settings.requireTls ? " (STARTTLS required)" : " (loopback relay, plain text)");

  return {
    description,
    async send(mail) {
      if (!isBareAddress(mail.to))
        throw new MailSendError(`Not a valid recipient address: ${singleLine(mail.to)}`, "EENVELOPE");
      const replyTo = mail.replyTo && isBareAddress(mail.replyTo.address) ? mail.replyTo : null;
      try {
        const info = await transport.sendMail({
          from: { name: singleLine(mail.from.name ?? ""), address: mail.from.address },
          to: mail.to,
          replyTo: replyTo ? { name: singleLine(replyTo.name ?? ""), address: replyTo.address } : undefined,
          subject: singleLine(mail.subject),
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          headers: mail.headers
            ? Object.fromEntries(Object.entries(mail.headers).map(([k, v]) => [k, singleLine(v)]))
            : undefined,
          attachments: mail.attachments?.map(({ filename, contentType, content }) => ({
            filename: singleLine(filename),
            contentType,
            content,
          })),
          // The envelope is set, not derived from the headers: only `to` ever receives the mail.
          envelope: { from: mail.from.address, to: [mail.to] },
          disableFileAccess: true,
          disableUrlAccess: true,
        });
        return { messageId: info.messageId, response: info.response };
      } catch (error) {
        const failure = error as { message?: string; code?: string };
        throw new MailSendError(singleLine(String(failure.message ?? error)).slice(0, 1000), failure.code ?? null);
      }
    },
  };
}

/** Notifications switched on: the mailer, MAIL_FROM and the NOTIFY_EMAIL override. */
export type MailSetup = { mailer: Mailer; from: MailAddress; notifyEmail: string | null };

/** From the validated environment; null (notifications off) when SMTP_URL is unset. */
export function mailSetupFromEnv(env: Pick<Env, "SMTP_URL" | "MAIL_FROM" | "NOTIFY_EMAIL">): MailSetup | null {
  if (!env.SMTP_URL || !env.MAIL_FROM) return null;
  return {
    mailer: createSmtpMailer(parseSmtpUrl(env.SMTP_URL)),
    from: parseMailAddress(env.MAIL_FROM),
    notifyEmail: env.NOTIFY_EMAIL ?? null,
  };
}
