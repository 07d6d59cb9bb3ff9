import { readFileSync } from "node:fs";
import { hiddenPrompt } from "./hidden-prompt";

/** Refused for want of a passphrase; the message says how to give one. Nothing was changed. */
export class PassphraseMissingError extends Error {
  override name = "PassphraseMissingError";
}

/**
 * Where the scripts get the backup passphrase: the first line of --passphrase-file, else
 * BACKUP_PASSPHRASE from the (service's) settings, else a hidden prompt in a terminal.
 */
export function passphraseSource(options: { file?: string; fromEnv?: string; what: string }): () => Promise<string> {
  let answer: Promise<string> | null = null;
  return () =>
    (answer ??= (async () => {
      if (options.file) return readFileSync(options.file, "utf8").split(/\r?\n/)[0] ?? "";
      if (options.fromEnv) return options.fromEnv;
      if (!process.stdin.isTTY) {
        throw new PassphraseMissingError(
          `${options.what}: give --passphrase-file PATH, or run this in a terminal to type the passphrase. Nothing was changed.`,
        );
      }
      return hiddenPrompt(`${options.what}. Passphrase (BACKUP_PASSPHRASE): `);
    })());
}
