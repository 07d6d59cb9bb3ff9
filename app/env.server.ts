import path from "node:path";
import proxyAddress from "proxy-addr";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "~/auth/password-schema";
import { z } from "~/lib/zod";
import { parseMailAddress, parseSmtpUrl, SmtpSettingsError } from "~/notifications/smtp-settings";
import { checkS3Settings, s3SettingsSchema, type S3SettingsHelp } from "~/s3-settings-schema.server";

/**
 * Every setting comes from the environment and is validated here, once, at
 * start-up. Nothing else reads process.env.
 */
// An S3-compatible bucket instead of DATA_DIR/uploads for images.
const IMAGES_BUCKET_HELP: S3SettingsHelp = {
  regionExample: "eu-west-1 (R2: auto)",
  endpointExample: "https://<account>.r2.cloudflarestorage.com",
  bucketMissing:
    "S3_* settings are set but S3_BUCKET is not: set S3_BUCKET too, or remove them to keep images on the local disk",
  keyPairIncomplete:
    "set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (to use the provider's default credentials, such as an instance role)",
};
// The off-site bucket the restic repository of the off-site copies lives in (decision 0070).
const BACKUP_BUCKET_HELP: S3SettingsHelp = {
  bucketExample: "cornerstone-backups",
  regionExample: "eu-central-003 (Backblaze B2) or auto (R2)",
  endpointExample: "https://s3.eu-central-003.backblazeb2.com (leave it unset for AWS)",
  bucketMissing:
    "BACKUP_S3_* settings are set but BACKUP_S3_BUCKET is not: set BACKUP_S3_BUCKET to the off-site bucket's name, or remove them to keep backups on this server only",
  keyPairIncomplete:
    "set both BACKUP_S3_ACCESS_KEY_ID and BACKUP_S3_SECRET_ACCESS_KEY (the off-site bucket's application key), or neither (to use the provider's default credentials)",
};

/** A number of periods an off-site copy is kept for: a whole number, 0 to keep none by that rule. */
function keepCount(name: string, periods: string, fallback: number) {
  const message = `${name} must be a whole number of ${periods}, such as ${fallback} (0 keeps none by this rule)`;
  return z.coerce
    .number({ error: message })
    .int(message)
    .min(0, message)
    .max(100_000, `${name} must be at most 100000`)
    .default(fallback);
}

const envSchema = z
  .object({
    NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
    PORT: z.coerce
      .number({ error: "PORT must be a number" })
      .int()
      .min(1, "PORT must be between 1 and 65535")
      .max(65535, "PORT must be between 1 and 65535")
      .default(3000),
    HOST: z.string().min(1).default("0.0.0.0"),
    DATA_DIR: z.string().min(1).default("./data"),
    SITE_URL: z.url({ error: "SITE_URL must be an absolute URL such as https://example.co.nz" }).optional(),
    // Express "trust proxy": false, a hop count, or the proxies' addresses ("loopback", IPs, CIDRs). Not "true".
    TRUST_PROXY: z.string().default("false"),
    ADMIN_USERNAME: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[\w.@-]+$/, "ADMIN_USERNAME may only contain letters, digits and . _ @ -")
      .optional(),
    ADMIN_PASSWORD: z
      .string()
      .min(PASSWORD_MIN_LENGTH, `ADMIN_PASSWORD must be at least ${PASSWORD_MIN_LENGTH} characters`)
      .max(PASSWORD_MAX_LENGTH)
      .optional(),
    // 1: apply ADMIN_PASSWORD (and ADMIN_USERNAME) to an existing administrator at this start.
    ADMIN_PASSWORD_RESET: z
      .enum(["0", "1"], { error: "ADMIN_PASSWORD_RESET must be 1 (apply ADMIN_PASSWORD at this start) or unset" })
      .default("0")
      .transform((value) => value === "1"),
    // Signs upload URLs; generated and kept in DATA_DIR when not given.
    UPLOAD_SIGNING_SECRET: z.string().min(32, "UPLOAD_SIGNING_SECRET must be at least 32 characters").optional(),
    // Signs device cookies and keys client-address hashes; generated and kept in DATA_DIR when not given.
    DEVICE_COOKIE_SECRET: z.string().min(32, "DEVICE_COOKIE_SECRET must be at least 32 characters").optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    // E-mail notifications: unset SMTP_URL means they are off.
    SMTP_URL: z.string().optional().superRefine(checkWith(parseSmtpUrl, "")),
    MAIL_FROM: z.string().optional().superRefine(checkWith(parseMailAddress, "MAIL_FROM ")),
    NOTIFY_EMAIL: z.email({ error: "NOTIFY_EMAIL must be one e-mail address, e.g. mark@example.co.nz" }).optional(),
    // Scheduled backups into DATA_DIR/backups: every this many hours (0: off), keeping the newest BACKUP_KEEP.
    BACKUP_INTERVAL_HOURS: z.coerce
      .number({ error: "BACKUP_INTERVAL_HOURS must be a number of hours, such as 24 (0 turns scheduled backups off)" })
      .min(0, "BACKUP_INTERVAL_HOURS must be 0 (off) or more")
      .max(8760, "BACKUP_INTERVAL_HOURS must be at most 8760 (a year)")
      .default(24),
    BACKUP_KEEP: z.coerce
      .number({ error: "BACKUP_KEEP must be a whole number such as 7" })
      .int("BACKUP_KEEP must be a whole number such as 7")
      .min(1, "BACKUP_KEEP must be at least 1")
      .max(1000, "BACKUP_KEEP must be at most 1000")
      .default(7),
    // Off-site copies (decision 0070): a restic repository in this S3-compatible bucket, or any restic repository.
    ...s3SettingsSchema("BACKUP_", BACKUP_BUCKET_HELP),
    BACKUP_OFFSITE_REPOSITORY: z
      .string()
      .regex(
        /^(\/|(sftp|rest|s3|b2|azure|gs|swift|rclone):)[^\n]+$/,
        "BACKUP_OFFSITE_REPOSITORY must be a restic repository: sftp:user@host:/path, rest:https://…, s3:… or a folder's absolute path such as /mnt/backup-disk/cornerstone",
      )
      .optional(),
    // Every backup (local, downloaded) is encrypted with it (age, decision 0052); it is the off-site repository's password.
    BACKUP_PASSPHRASE: z
      .string()
      .min(
        12,
        "BACKUP_PASSPHRASE must be at least 12 characters: use four or five random words, and keep a copy away from this server",
      )
      .max(1000)
      .optional(),
    // Off-site copies: every this many minutes, plus 5 minutes after each start.
    BACKUP_OFFSITE_MINUTES: z.coerce
      .number({ error: "BACKUP_OFFSITE_MINUTES must be a whole number of minutes, such as 60" })
      .int("BACKUP_OFFSITE_MINUTES must be a whole number of minutes, such as 60")
      .min(5, "BACKUP_OFFSITE_MINUTES must be at least 5 (a copy every 5 minutes)")
      .max(10_080, "BACKUP_OFFSITE_MINUTES must be at most 10080 (a week)")
      .default(60),
    // Which off-site copies stay: the newest of each of the last N hours, days and months that have one.
    BACKUP_KEEP_HOURLY: keepCount("BACKUP_KEEP_HOURLY", "hours", 48),
    BACKUP_KEEP_DAILY: keepCount("BACKUP_KEEP_DAILY", "days", 30),
    BACKUP_KEEP_MONTHLY: keepCount("BACKUP_KEEP_MONTHLY", "months", 12),
    // Scale-out: PostgreSQL instead of SQLite, an S3-compatible bucket instead of DATA_DIR/uploads.
    DATABASE_URL: z
      .url({
        protocol: /^postgres(?:ql)?$/,
        error: "DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/database",
      })
      .optional(),
    ...s3SettingsSchema("", IMAGES_BUCKET_HELP),
    // Where browsers fetch image variants from instead of /media/ (a public bucket or a CDN).
    MEDIA_BASE_URL: z
      .url({
        protocol: /^https?$/,
        error: "MEDIA_BASE_URL must be an http(s) URL such as https://media.example.co.nz/variants",
      })
      .optional(),
    // The start-up check that backups and originals cannot be downloaded from the bucket without a key.
    S3_PRIVACY_CHECK: z
      .enum(["on", "off"], {
        error:
          "S3_PRIVACY_CHECK must be on or off (off only for a store whose privacy is enforced elsewhere; leave it unset for on)",
      })
      .default("on"),
    // Photos visitors attach to enquiries (decision 0056), capped across every instance.
    ENQUIRY_PHOTOS_PER_DAY: z.coerce
      .number({ error: "ENQUIRY_PHOTOS_PER_DAY must be a whole number of photos, such as 50 (0 takes no photos)" })
      .int("ENQUIRY_PHOTOS_PER_DAY must be a whole number of photos, such as 50 (0 takes no photos)")
      .min(0, "ENQUIRY_PHOTOS_PER_DAY must be 0 (no photos) or more")
      .max(100_000, "ENQUIRY_PHOTOS_PER_DAY must be at most 100000")
      .default(50),
    ENQUIRY_PHOTOS_MAX_MB: z.coerce
      .number({ error: "ENQUIRY_PHOTOS_MAX_MB must be a whole number of megabytes, such as 2048 (0 takes no photos)" })
      .int("ENQUIRY_PHOTOS_MAX_MB must be a whole number of megabytes, such as 2048 (0 takes no photos)")
      .min(0, "ENQUIRY_PHOTOS_MAX_MB must be 0 (no photos) or more")
      .max(10_000_000, "ENQUIRY_PHOTOS_MAX_MB must be at most 10000000 (10 TB)")
      .default(2048),
    ENQUIRY_PHOTO_DAYS: z.coerce
      .number({ error: "ENQUIRY_PHOTO_DAYS must be a whole number of days, such as 365" })
      .int("ENQUIRY_PHOTO_DAYS must be a whole number of days, such as 365")
      .min(1, "ENQUIRY_PHOTO_DAYS must be at least 1")
      .max(36_500, "ENQUIRY_PHOTO_DAYS must be at most 36500 (100 years)")
      .default(365),
    // Disk for visitors' photos still arriving, in all (server/photo-intake/photo-disk.ts): one address may take half.
    ENQUIRY_PHOTO_UPLOADS_MB: z.coerce
      .number({ error: "ENQUIRY_PHOTO_UPLOADS_MB must be a whole number of megabytes, such as 100" })
      .int("ENQUIRY_PHOTO_UPLOADS_MB must be a whole number of megabytes, such as 100")
      .min(32, "ENQUIRY_PHOTO_UPLOADS_MB must be at least 32 (half of it must hold one 15 MB photo)")
      .max(100_000, "ENQUIRY_PHOTO_UPLOADS_MB must be at most 100000 (100 GB)")
      .default(100),
    // Privacy-first visit counting (docs/PRIVACY.md): on unless turned off.
    ANALYTICS: z.enum(["on", "off"], { error: "ANALYTICS must be on or off (leave it unset for on)" }).default("on"),
  })
  .refine((env) => !(env.SMTP_URL && !env.MAIL_FROM), {
    message:
      "MAIL_FROM is required when SMTP_URL is set: mail providers refuse mail sent from an address you may not send from, " +
      "or file it as spam. Set it to an address your provider lets you send from, e.g. MAIL_FROM='Website <website@yourdomain.co.nz>'",
    path: ["MAIL_FROM"],
  })
  .refine((env) => !(env.ADMIN_USERNAME && !env.ADMIN_PASSWORD), {
    message: "ADMIN_USERNAME is set but ADMIN_PASSWORD is not: set both, or neither",
    path: ["ADMIN_PASSWORD"],
  })
  .refine((env) => !(env.ADMIN_PASSWORD_RESET && !env.ADMIN_PASSWORD), {
    message: "ADMIN_PASSWORD_RESET=1 needs ADMIN_PASSWORD (the password to apply)",
    path: ["ADMIN_PASSWORD_RESET"],
  })
  .superRefine(checkS3Settings("", IMAGES_BUCKET_HELP))
  .superRefine(checkS3Settings("BACKUP_", BACKUP_BUCKET_HELP))
  .refine((env) => !(env.BACKUP_S3_BUCKET && env.BACKUP_OFFSITE_REPOSITORY), {
    message:
      "BACKUP_OFFSITE_REPOSITORY and BACKUP_S3_BUCKET are both set: off-site copies go to one repository, so keep one of them",
    path: ["BACKUP_OFFSITE_REPOSITORY"],
  })
  .superRefine((env, ctx) => {
    const problem = trustProxyProblem(env.TRUST_PROXY);
    if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["TRUST_PROXY"] });
  });

/** A zod check that runs a parser and reports its error message. */
function checkWith(parse: (value: string) => unknown, prefix: string) {
  return (value: string | undefined, ctx: z.RefinementCtx) => {
    if (value === undefined) return;
    try {
      parse(value);
    } catch (error) {
      if (!(error instanceof SmtpSettingsError)) throw error;
      ctx.addIssue({ code: "custom", message: `${prefix}${error.message}` });
    }
  };
}

export type Env = Omit<
  z.infer<typeof envSchema>,
  "SITE_URL" | "TRUST_PROXY" | "DATA_DIR" | "S3_FORCE_PATH_STYLE" | "BACKUP_S3_FORCE_PATH_STYLE" | "MEDIA_BASE_URL"
> & {
  DATA_DIR: string;
  SITE_URL: string;
  /** False when SITE_URL was not set and is the stand-in http://localhost:PORT (no message may advise it as a CORS origin). */
  SITE_URL_GIVEN: boolean;
  /** false, a hop count, or a list of the proxies' addresses; never `true` (see trustProxyProblem). */
  TRUST_PROXY: false | number | string;
  S3_FORCE_PATH_STYLE: boolean;
  BACKUP_S3_FORCE_PATH_STYLE: boolean;
  /** Without a trailing slash. */
  MEDIA_BASE_URL?: string;
};

export class InvalidEnvironmentError extends Error {
  override name = "InvalidEnvironmentError";
}

const TRUST_PROXY_HELP =
  "list your proxy's addresses instead (loopback, an IP such as 10.0.0.2, or a CIDR such as 10.0.0.0/24, comma-separated), " +
  "or give the number of proxies in front of the app (a hop count such as 1)";

/** The most proxies a hop count may name: real set-ups have one or two (a CDN, then a load balancer). */
const MAX_TRUSTED_HOPS = 3;

/** Why a TRUST_PROXY value is refused, or null. `true` trusts an X-Forwarded-For any client can write. */
function trustProxyProblem(value: string): string | null {
  if (value === "false") return null;
  if (/^\d+$/.test(value)) {
    if (Number(value) <= MAX_TRUSTED_HOPS) return null;
    return (
      `TRUST_PROXY=${value} trusts more hops than any real set-up has (at most ${MAX_TRUSTED_HOPS}): ` +
      "a count larger than the number of proxies in front of the app lets a client choose its own address " +
      "by sending its own X-Forwarded-For. Set the real number of proxies (usually 1), or " +
      "list your proxy's addresses instead (loopback, an IP such as 10.0.0.2, or a CIDR such as 10.0.0.0/24, comma-separated)"
    );
  }
  if (value === "true") return `TRUST_PROXY=true would believe any client's X-Forwarded-For: ${TRUST_PROXY_HELP}`;
  try {
    proxyAddress.compile(value.split(",").map((part) => part.trim()));
    return null;
  } catch {
    return `TRUST_PROXY "${value}" is not a list of addresses: ${TRUST_PROXY_HELP}`;
  }
}

function parseTrustProxy(value: string): false | number | string {
  if (value === "false" || value === "" || value === "0") return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** One line for the start-up log: whose X-Forwarded-For headers are believed. */
export function describeTrustProxy(trustProxy: Env["TRUST_PROXY"]): string {
  if (trustProxy === false) {
    return "TRUST_PROXY is not set: client addresses are the connecting sockets' (X-Forwarded-For is ignored)";
  }
  if (typeof trustProxy === "number") {
    return `TRUST_PROXY=${trustProxy}: the last ${trustProxy} hop(s) of X-Forwarded-For are trusted, whoever connects; the app must only be reachable through that many proxies`;
  }
  return `TRUST_PROXY: X-Forwarded-For and X-Forwarded-Proto are trusted only from ${trustProxy}`;
}

/** Parses and checks the environment; throws one readable error listing every problem. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings count as unset, as in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  - ${issue.path.join(".") || "environment"}: ${issue.message}`);
    throw new InvalidEnvironmentError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  const siteUrl = (env.SITE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  return {
    ...env,
    DATA_DIR: path.resolve(env.DATA_DIR),
    SITE_URL: siteUrl,
    SITE_URL_GIVEN: env.SITE_URL !== undefined,
    TRUST_PROXY: parseTrustProxy(env.TRUST_PROXY),
    S3_FORCE_PATH_STYLE: env.S3_FORCE_PATH_STYLE === "true",
    BACKUP_S3_FORCE_PATH_STYLE: env.BACKUP_S3_FORCE_PATH_STYLE === "true",
    MEDIA_BASE_URL: env.MEDIA_BASE_URL?.replace(/\/+$/, ""),
  };
}

/** The first descriptor a service manager passes (sd_listen_fds(3): SD_LISTEN_FDS_START). */
const FIRST_PASSED_DESCRIPTOR = 3;

/**
 * The listening socket systemd handed over (socket activation, deploy/cornerstone.socket): descriptor
 * 3 when LISTEN_FDS counts at least one and LISTEN_PID names this process, as sd_listen_fds(3)
 * checks; otherwise null, and the server listens on HOST:PORT itself. systemd keeps the socket open
 * while the service restarts, so connections made meanwhile wait for the next process.
 */
export function passedListenSocket(
  source: Record<string, string | undefined> = process.env,
  pid = process.pid,
): number | null {
  if (source.LISTEN_PID !== String(pid)) return null;
  const count = Number(source.LISTEN_FDS);
  return Number.isInteger(count) && count >= 1 ? FIRST_PASSED_DESCRIPTOR : null;
}

/** The only values that may reach the browser. */
export function getPublicEnv(env: Env) {
  return { SITE_URL: env.SITE_URL } as const;
}
export type PublicEnv = ReturnType<typeof getPublicEnv>;
