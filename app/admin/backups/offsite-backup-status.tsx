import { offsiteSummary, PASSPHRASE_HOW_TO, RESTIC_HOW_TO, timeAgo, type OffsiteStatus } from "~/backups/backup-status";
import { formatSubmittedAt } from "~/lib/format-date";
import { OwnerNotice } from "../owner-notice";

/** Off-server copies (decision 0070): the last one's age; red after three hours of failures or while none can leave. */
export function OffsiteBackupStatus({ offsite, now = new Date() }: { offsite: OffsiteStatus; now?: Date }) {
  if (offsite.state === "off") {
    return (
      <p className="text-stone-700">
        Backups are kept on this server only. Download one now and then, and keep it somewhere else.
      </p>
    );
  }
  const summary = offsiteSummary(offsite, now);
  return (
    <>
      <p
        data-testid="offsite-last-copy"
        className={summary.tone === "danger" ? "font-semibold text-red-800" : undefined}
      >
        {offsite.lastCopy ? (
          <>
            Last copy off the server: <time dateTime={offsite.lastCopy.at}>{timeAgo(offsite.lastCopy.at, now)}</time>
          </>
        ) : (
          "No copy has left the server yet."
        )}
      </p>
      {offsite.state === "ok" || offsite.state === "waiting" ? (
        <p className="text-stone-700">
          A copy leaves the server every {describeInterval(offsite.intervalMinutes)}, encrypted.
        </p>
      ) : null}
      {offsite.failing ? (
        <OwnerNotice
          tone="danger"
          title="Copies are not leaving the server"
          testId="offsite-failing"
          details={
            <p className="break-words">
              Failing since {formatSubmittedAt(offsite.failing.since)} ({offsite.failing.failures} tries); last error{" "}
              {formatSubmittedAt(offsite.failing.lastFailedAt)}: {offsite.failing.message}
            </p>
          }
        >
          Your site could not copy its backups off the server for the last{" "}
          {hoursSince(offsite.lastCopy?.at ?? offsite.failing.since, now)} hours. Ask whoever runs your website to look
          at it.
        </OwnerNotice>
      ) : null}
      {offsite.state === "no-passphrase" ? (
        <OwnerNotice
          tone="danger"
          title="No copy leaves the server"
          testId="offsite-no-passphrase"
          details={<p>{PASSPHRASE_HOW_TO}</p>}
        >
          Your backups are not being copied off the server: a backup passphrase must be set first, so that the copies
          are encrypted. Ask whoever runs your website to set one.
        </OwnerNotice>
      ) : null}
      {offsite.state === "no-restic" ? (
        <OwnerNotice
          tone="danger"
          title="No copy leaves the server"
          testId="offsite-no-restic"
          details={<p>{RESTIC_HOW_TO}</p>}
        >
          Your backups cannot be copied off the server: the program that makes the copies is not installed on it. Ask
          whoever runs your website to install it.
        </OwnerNotice>
      ) : null}
    </>
  );
}

function describeInterval(minutes: number): string {
  if (minutes === 60) return "hour";
  if (minutes % 60 === 0) return `${minutes / 60} hours`;
  return `${minutes} minutes`;
}

function hoursSince(iso: string, now: Date): number {
  return Math.max(3, Math.floor((now.getTime() - new Date(iso).getTime()) / 3_600_000));
}
