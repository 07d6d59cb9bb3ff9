import path from "node:path";
import { z } from "~/lib/zod";

/**
 * Every setting comes from the environment and is validated here, once, at
 * start-up. Nothing else reads process.env.
 */
const S3_SETTINGS = ["S3_REGION", "S3_ENDPOINT", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_FORCE_PATH_STYLE"] as const;

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
    // Express "trust proxy": false, true, a hop count, or an address list such as "loopback".
    TRUST_PROXY: z.string().default("false"),
    ADMIN_USERNAME: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[\w.@-]+$/, "ADMIN_USERNAME may only contain letters, digits and . _ @ -")
      .optional(),
    ADMIN_PASSWORD: z.string().min(8, "ADMIN_PASSWORD must be at least 8 characters").max(1024).optional(),
    // Signs upload URLs; generated and kept in DATA_DIR when not given.
    UPLOAD_SIGNING_SECRET: z.string().min(32, "UPLOAD_SIGNING_SECRET must be at least 32 characters").optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    // Scale-out (issue 12): PostgreSQL instead of SQLite, an S3-compatible bucket instead of DATA_DIR/uploads.
    DATABASE_URL: z
      .url({
        protocol: /^postgres(?:ql)?$/,
        error: "DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/database",
      })
      .optional(),
    S3_BUCKET: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        "S3_BUCKET must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens",
      )
      .optional(),
    S3_REGION: z.string().regex(/^[a-z0-9-]{1,40}$/, "S3_REGION must be a region name such as eu-west-1 (R2: auto)").optional(),
    S3_ENDPOINT: z
      .url({ protocol: /^https?$/, error: "S3_ENDPOINT must be an http(s) URL such as https://<account>.r2.cloudflarestorage.com" })
      .optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).max(256).optional(),
    S3_FORCE_PATH_STYLE: z.enum(["true", "false"], { error: "S3_FORCE_PATH_STYLE must be true or false" }).optional(),
    // Where browsers fetch image variants from instead of /media/ (a public bucket or a CDN).
    MEDIA_BASE_URL: z
      .url({ protocol: /^https?$/, error: "MEDIA_BASE_URL must be an http(s) URL such as https://media.example.co.nz/variants" })
      .optional(),
  })
  .refine((env) => !(env.ADMIN_USERNAME && !env.ADMIN_PASSWORD), {
    message: "ADMIN_USERNAME is set but ADMIN_PASSWORD is not: set both, or neither",
    path: ["ADMIN_PASSWORD"],
  })
  .refine((env) => env.S3_BUCKET || S3_SETTINGS.every((name) => env[name] === undefined), {
    message: "S3_* settings are set but S3_BUCKET is not: set S3_BUCKET too, or remove them to keep images on the local disk",
    path: ["S3_BUCKET"],
  })
  .refine((env) => !env.S3_ACCESS_KEY_ID === !env.S3_SECRET_ACCESS_KEY, {
    message:
      "set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (to use the provider's default credentials, such as an instance role)",
    path: ["S3_SECRET_ACCESS_KEY"],
  });

export type Env = Omit<
  z.infer<typeof envSchema>,
  "SITE_URL" | "TRUST_PROXY" | "DATA_DIR" | "S3_FORCE_PATH_STYLE" | "MEDIA_BASE_URL"
> & {
  DATA_DIR: string;
  SITE_URL: string;
  TRUST_PROXY: boolean | number | string;
  S3_FORCE_PATH_STYLE: boolean;
  /** Without a trailing slash. */
  MEDIA_BASE_URL?: string;
};

export class InvalidEnvironmentError extends Error {
  override name = "InvalidEnvironmentError";
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === "true") return true;
  if (value === "false" || value === "") return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** Parses and checks the environment; throws one readable error listing every problem. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings count as unset, as in most .env tooling.
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ""),
  );
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map(
      (issue) => `  - ${issue.path.join(".") || "environment"}: ${issue.message}`,
    );
    throw new InvalidEnvironmentError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  const siteUrl = (env.SITE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  return {
    ...env,
    DATA_DIR: path.resolve(env.DATA_DIR),
    SITE_URL: siteUrl,
    TRUST_PROXY: parseTrustProxy(env.TRUST_PROXY),
    S3_FORCE_PATH_STYLE: env.S3_FORCE_PATH_STYLE === "true",
    MEDIA_BASE_URL: env.MEDIA_BASE_URL?.replace(/\/+$/, ""),
  };
}

/** The only values that may reach the browser. */
export function getPublicEnv(env: Env) {
  return { SITE_URL: env.SITE_URL } as const;
}
export type PublicEnv = ReturnType<typeof getPublicEnv>;
