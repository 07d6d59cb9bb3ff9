import { formatBytes } from "~/backups/backup-status";
import type { CarriedSecrets } from "~/backups/carried-secrets.server";
import { OffsitePassphraseError } from "~/backups/offsite-keys.server";
import { OffsiteDamagedError } from "~/backups/offsite-objects.server";
import { listCopies, openOffsiteRepository } from "~/backups/offsite-repository.server";
import {
  chooseCopy,
  listOffsiteCopies,
  OffsiteRestoreRefusedError,
  rebuildArchive,
} from "~/backups/offsite-restore.server";
import type { OffsiteStore } from "~/backups/offsite-store.server";
import type { OffsiteTarget } from "~/backups/offsite-target.server";
import { RestoreRefusedError } from "~/backups/restore.server";
import { PassphraseMissingError } from "./passphrase";

/**
 * `npm run restore -- --from-offsite [NAME]` and `--list` for the off-site copies of decision 0060.
 * A name of the older kind (cornerstone-….tar.gz[.age], decision 0052) is restored as before.
 */
export const isFullArchiveName = (name: string) => /^cornerstone-.*\.tar\.gz(\.age)?$/.test(name);

/** Refusals of the off-site store, in the restore's words (nothing was changed by any of them). */
function refused(error: unknown): never {
  if (
    error instanceof OffsitePassphraseError ||
    error instanceof OffsiteRestoreRefusedError ||
    error instanceof PassphraseMissingError
  ) {
    throw new RestoreRefusedError(error.message);
  }
  if (error instanceof OffsiteDamagedError) throw new RestoreRefusedError(`${error.message}. Nothing was changed.`);
  throw error;
}

/**
 * The copy to restore, rebuilt as an archive in workDir: the named one, or the newest that opens
 * with the passphrase. Null when the store holds no copies of this kind (the caller then looks for
 * a full archive). `cleanup` removes the rebuilt archive.
 */
export async function rebuildOffsiteCopy(
  store: OffsiteStore,
  options: { name?: string; workDir: string; passphrase: () => Promise<string>; onChosen?: (name: string) => void },
): Promise<{ file: string; name: string; carried: CarriedSecrets } | null> {
  try {
    // No copy of this kind: no passphrase is asked for here (a full archive may not need one).
    if (!(await listCopies(store)).length) return null;
    const repo = await openOffsiteRepository(store, await options.passphrase(), { create: false });
    if (!repo) return null;
    const manifest = await chooseCopy(repo, options.name);
    options.onChosen?.(manifest.name);
    const rebuilt = await rebuildArchive(repo, manifest, { workDir: options.workDir });
    return { file: rebuilt.file, name: manifest.name, carried: rebuilt.carried };
  } catch (error) {
    return refused(error);
  }
}

const when = (iso: string | Date) => new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC";

/** Prints every copy in the store (newest first, with its time and size), then the full archives beside them. */
export async function printOffsiteList(
  store: OffsiteStore,
  target: OffsiteTarget,
  passphrase: () => Promise<string>,
): Promise<void> {
  let repo;
  try {
    repo = await openOffsiteRepository(store, await passphrase(), { create: false });
  } catch (error) {
    refused(error);
  }
  const copies = repo ? await listOffsiteCopies(repo) : [];
  console.log(`Copies in ${store.description} (restore one with: npm run restore -- --from-offsite NAME):`);
  if (!copies.length) console.log("  none yet");
  for (const copy of copies) {
    if ("problem" in copy) console.log(`  ${copy.name}  ${when(copy.at)}  cannot be read: ${copy.problem}`);
    else {
      console.log(
        `  ${copy.name}  ${when(copy.at)}  ${formatBytes(copy.tableBytes + copy.fileBytes)} (database ${formatBytes(copy.tableBytes)}, ${copy.files} image files)`,
      );
    }
  }
  const archives = (await target.list())
    .filter((copy) => isFullArchiveName(copy.name))
    .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
  if (archives.length) {
    console.log("Full backups copied there before (restore one by its name):");
    for (const archive of archives)
      console.log(`  ${archive.name}  ${when(archive.modifiedAt)}  ${formatBytes(archive.bytes)}`);
  }
}
