import path from "node:path";
import { z } from "~/lib/zod";

/**
 * Every setting comes from the environment and is validated here, once, at
 * start-up. Nothing else reads process.env.
 */
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
    // Privacy-first visit counting (docs/PRIVACY.md): on unless turned off.
    ANALYTICS: z
      .enum(["on", "off"], { error: "ANALYTICS must be on or off (leave it unset for on)" })
      .default("on"),
  })
  .refine((env) => !(env.ADMIN_USERNAME && !env.ADMIN_PASSWORD), {
    message: "ADMIN_USERNAME is set but ADMIN_PASSWORD is not: set both, or neither",
    path: ["ADMIN_PASSWORD"],
  });

export type Env = Omit<z.infer<typeof envSchema>, "SITE_URL" | "TRUST_PROXY" | "DATA_DIR"> & {
  DATA_DIR: string;
  SITE_URL: string;
  TRUST_PROXY: boolean | number | string;
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
  };
}

/** The only values that may reach the browser. */
export function getPublicEnv(env: Env) {
  return { SITE_URL: env.SITE_URL } as const;
}
export type PublicEnv = ReturnType<typeof getPublicEnv>;
