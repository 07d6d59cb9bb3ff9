import type { BackupStatus } from "~/backups/backup-status";
import { formatDueTime, formatSubmittedAt } from "./format-date";
import { TechnicalDetails } from "./owner-notice";

/** "today 3:00 AM", else the full date: when the last copy left the server. */
export function keptOffAt(iso: string, now: Date = new Date()): string {
  return new Date(iso).toDateString() === now.toDateString() ? `today ${formatDueTime(iso, now)}` : formatSubmittedAt(iso);
}

/**
 * The backup card's lines about copies kept off the server (issue 18): where
 * the last one went and when, a red notice after two failed uploads in a row,
 * and a warning while they are not encrypted.
 */
export function OffsiteBackupStatus({ offsite }: { offsite: BackupStatus["offsite"] }) {
  if (!offsite.configured) {
    return <p className="text-stone-700">Backups are kept on this server only. Download one now and then, and keep it somewhere else.</p>;
  }
  return (
    <>
      <p data-testid="offsite-last-copy">
        {offsite.lastCopy ? (
          <>
            Last copy kept off the server: <time dateTime={offsite.lastCopy.at}>{keptOffAt(offsite.lastCopy.at)}</time>
          </>
        ) : (
          "No copy has been kept off the server yet."
        )}
      </p>
      {offsite.failing ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-red-800" data-testid="offsite-failing">
          <p>
            Your site could not copy its backups off the server the last {offsite.failing.failures} times it tried. Ask whoever runs your
            website to look at it.
          </p>
          <TechnicalDetails className="mt-1">
            <p>
              Last failed upload {formatSubmittedAt(offsite.failing.lastFailedAt)}: {offsite.failing.message}
            </p>
          </TechnicalDetails>
        </div>
      ) : null}
      {offsite.encrypted ? null : (
        <div className="rounded-lg border border-amber-200 bg-amber-50 px-3 pt-3 text-amber-900" data-testid="offsite-not-encrypted">
          <p>
            The copies kept off the server are not encrypted: whoever can read that storage can read your enquiries. Ask whoever runs
            your website to set a backup passphrase.
          </p>
          <TechnicalDetails>
            <p>Set BACKUP_PASSPHRASE in the server&apos;s settings (docs/DEPLOY.md) and restart the service.</p>
          </TechnicalDetails>
        </div>
      )}
    </>
  );
}
