import { z } from "~/lib/zod";

/** SMTP_URL and MAIL_FROM, parsed the same way by app/env.server.ts and the mail adapter. */
export type SmtpSettings = {
  /** smtps:// (TLS from the first byte) */
  secure: boolean;
  host: string;
  port: number;
  user: string | null;
  pass: string | null;
  /** smtp:// must upgrade with STARTTLS, except to a local relay on a loopback address. */
  requireTls: boolean;
};

export class SmtpSettingsError extends Error {
  override name = "SmtpSettingsError";
}

const SMTP_URL_HELP = "use smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (TLS)";

/** 127.0.0.0/8, ::1 and localhost: where a local relay (e.g. Postfix) may listen in plain text. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

export function parseSmtpUrl(value: string): SmtpSettings {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SmtpSettingsError(`SMTP_URL is not a URL: ${SMTP_URL_HELP}`);
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new SmtpSettingsError(`SMTP_URL must start with smtp:// or smtps://: ${SMTP_URL_HELP}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!host) throw new SmtpSettingsError(`SMTP_URL has no host name: ${SMTP_URL_HELP}`);
  // Query options would reach nodemailer and could switch STARTTLS off: refused.
  if (url.search || url.hash || (url.pathname && url.pathname !== "/")) {
    throw new SmtpSettingsError(
      `SMTP_URL must have no path or ?options, only user, password, host and port: ${SMTP_URL_HELP}`,
    );
  }
  const secure = url.protocol === "smtps:";
  let user: string | null = null;
  let pass: string | null = null;
  try {
    user = url.username ? decodeURIComponent(url.username) : null;
    pass = url.password ? decodeURIComponent(url.password) : null;
  } catch {
    throw new SmtpSettingsError(
      "SMTP_URL: the user name or password is badly percent-encoded (write @ as %40, : as %3A)",
    );
  }
  return {
    secure,
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    user,
    pass,
    requireTls: !secure && !isLoopbackHost(host),
  };
}

export type MailAddress = { name: string | null; address: string };

const emailSchema = z.email();

/** "site@example.nz" or "Website <site@example.nz>" (the display name may be quoted). */
export function parseMailAddress(value: string): MailAddress {
  const text = value.trim();
  if (/[\r\n]/.test(text)) throw new SmtpSettingsError("must be on one line");
  const named = /^(?:"([^"]*)"|([^<>"]*?))\s*<([^<>\s]+)>$/.exec(text);
  const name = named ? (named[1] ?? named[2] ?? "").trim() || null : null;
  const address = named ? named[3]! : text;
  if (!emailSchema.safeParse(address).success) {
    throw new SmtpSettingsError(
      'must be an e-mail address, e.g. website@example.co.nz or "Website <website@example.co.nz>"',
    );
  }
  return { name, address };
}
