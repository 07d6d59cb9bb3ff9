import path from "node:path";
import type { Env } from "~/env.server";
import { loadOrCreateSecret } from "~/lib/secrets.server";
import { createLocalStorage, type ObjectStorage } from "./storage.server";

/**
 * How to open the object storage, as plain data: the web process opens it,
 * and hands the same value to the image worker, which opens its own
 * (decision 0017). Each implementation of ObjectStorage adds its variant.
 */
export type StorageConfig = {
  kind: "local";
  /** Root directory of the objects (`$DATA_DIR/uploads`). */
  rootDir: string;
  signingSecret: string;
};

/** The storage this environment asks for. Creates the signing secret on first use. */
export function storageConfigFromEnv(env: Env): StorageConfig {
  return {
    kind: "local",
    rootDir: path.join(env.DATA_DIR, "uploads"),
    signingSecret: loadOrCreateSecret(env.DATA_DIR, "upload-signing", env.UPLOAD_SIGNING_SECRET),
  };
}

export function openStorage(config: StorageConfig): ObjectStorage {
  switch (config.kind) {
    case "local":
      return createLocalStorage({ rootDir: config.rootDir, signingSecret: config.signingSecret });
  }
}
