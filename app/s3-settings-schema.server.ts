import { z } from "~/lib/zod";

/**
 * The validators of one S3-compatible bucket's settings, written once for both buckets the
 * environment may name: the images' bucket (no prefix) and the off-site backups' (BACKUP_). Each
 * gets its own examples and advice in the messages.
 */

/** The settings of a bucket besides its name. */
const S3_SETTING_NAMES = [
  "S3_REGION",
  "S3_ENDPOINT",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_FORCE_PATH_STYLE",
] as const;
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION_NAME = /^[a-z0-9-]{1,40}$/;

/** What the messages about one set of bucket settings suggest. */
export type S3SettingsHelp = {
  /** Shown after the bucket-name rule as "(for example …)", when given. */
  bucketExample?: string;
  regionExample: string;
  endpointExample: string;
  /** Settings given without the bucket's name: what to do. */
  bucketMissing: string;
  /** Only one of the two keys given: what to do. */
  keyPairIncomplete: string;
};

type Prefixed<P extends string, T> = { [K in keyof T & string as `${P}${K}`]: T[K] };

/** The fields PREFIX + S3_BUCKET, S3_REGION, S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE. */
export function s3SettingsSchema<P extends string>(prefix: P, help: S3SettingsHelp) {
  const bucketExample = help.bucketExample ? ` (for example ${help.bucketExample})` : "";
  const fields = {
    S3_BUCKET: z
      .string()
      .regex(
        BUCKET_NAME,
        `${prefix}S3_BUCKET must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens${bucketExample}`,
      )
      .optional(),
    S3_REGION: z
      .string()
      .regex(REGION_NAME, `${prefix}S3_REGION must be a region name such as ${help.regionExample}`)
      .optional(),
    S3_ENDPOINT: z
      .url({
        protocol: /^https?$/,
        error: `${prefix}S3_ENDPOINT must be an http(s) URL such as ${help.endpointExample}`,
      })
      .optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).max(256).optional(),
    S3_FORCE_PATH_STYLE: z
      .enum(["true", "false"], { error: `${prefix}S3_FORCE_PATH_STYLE must be true or false` })
      .optional(),
  };
  return Object.fromEntries(Object.entries(fields).map(([name, schema]) => [`${prefix}${name}`, schema])) as Prefixed<
    P,
    typeof fields
  >;
}

/** The checks across one bucket's settings: its name whenever any of them is set, and both keys or neither. */
export function checkS3Settings(prefix: string, help: S3SettingsHelp) {
  return (env: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (!env[`${prefix}S3_BUCKET`] && S3_SETTING_NAMES.some((name) => env[`${prefix}${name}`] !== undefined)) {
      ctx.addIssue({ code: "custom", message: help.bucketMissing, path: [`${prefix}S3_BUCKET`] });
    }
    if (!env[`${prefix}S3_ACCESS_KEY_ID`] !== !env[`${prefix}S3_SECRET_ACCESS_KEY`]) {
      ctx.addIssue({ code: "custom", message: help.keyPairIncomplete, path: [`${prefix}S3_SECRET_ACCESS_KEY`] });
    }
  };
}
