import { useQuery } from "@tanstack/react-query";
import { DatabaseBackup, Download } from "lucide-react";
import { useState } from "react";
import {
  BACKUP_DOWNLOAD_URL,
  BACKUP_STATUS_URL,
  DOWNLOAD_REMINDER_DAYS,
  formatBytes,
  type BackupStatus,
} from "~/backups/backup-status";
import { buttonClasses } from "~/components/ui/button";
import { DashboardCard, LoadFailed } from "./admin-ui";
import { formatSubmittedAt } from "./format-date";
import { OwnerNotice } from "./owner-notice";

const PROBLEM_LEAD: Record<NonNullable<BackupStatus["problem"]>["kind"], string> = {
  failed: "The last backup failed",
  skipped: "A backup was skipped",
  warning: "The last backup finished with a warning",
};

/** What the owner reads (issue 18 §12); the lead above goes under the details. */
const PROBLEM_SENTENCE: Record<NonNullable<BackupStatus["problem"]>["kind"], string> = {
  failed: "Your site could not make its last backup. Ask whoever runs your website to look at it.",
  skipped: "Your site skipped its last backup. Ask whoever runs your website to look at it.",
  warning: "Your site made its last backup, with a warning. Ask whoever runs your website to look at it.",
};

const when = (iso: string) => <time dateTime={iso}>{formatSubmittedAt(iso)}</time>;

/**
 * The dashboard's backup card: the last backup, any problem with the
 * scheduled ones, and Download backup, so that a copy lives off the server.
 * The download is a plain link: the browser streams it straight to a file.
 */
export function BackupCard() {
  const status = useQuery<BackupStatus>({ queryKey: [BACKUP_STATUS_URL] });
  const [downloadStarted, setDownloadStarted] = useState(false);

  return (
    <DashboardCard
      id="backups"
      title="Backups"
      description="A copy of every text, photo and enquiry on the website."
      icon={<DatabaseBackup aria-hidden="true" className="h-5 w-5" />}
      bodyClassName="mt-5 grid gap-3 text-sm text-stone-800"
    >
      {status.isPending ? (
        <p role="status">Loading backup status...</p>
      ) : status.isError ? (
        <LoadFailed message="Unable to load the backup status." onRetry={() => void status.refetch()} retrying={status.isFetching} />
      ) : (
        <>
          <p>
            {status.data.lastBackup ? (
              <>
                Last backup: {when(status.data.lastBackup.at)} ({formatBytes(status.data.lastBackup.bytes)})
              </>
            ) : (
              "No backup yet."
            )}
          </p>
          <p className="text-stone-700">
            {status.data.schedule.intervalHours > 0
              ? `Automatic backups every ${status.data.schedule.intervalHours} hours; the newest ${status.data.schedule.keep} are kept on the server.`
              : "Automatic backups are off."}
          </p>
          {status.data.running ? <p className="text-stone-700">A backup is being made right now.</p> : null}
          {status.data.problem ? (
            <OwnerNotice
              tone="danger"
              title="Backup problem"
              testId="backup-problem"
              details={
                <p>
                  {PROBLEM_LEAD[status.data.problem.kind]} ({when(status.data.problem.at)}): {status.data.problem.message}
                </p>
              }
            >
              {PROBLEM_SENTENCE[status.data.problem.kind]}
            </OwnerNotice>
          ) : null}
          <p>
            {status.data.lastDownloadAt ? <>Last downloaded: {when(status.data.lastDownloadAt)}</> : "Not downloaded yet."}
          </p>
          {status.data.downloadReminder && !downloadStarted ? (
            <p className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-amber-900" data-testid="backup-reminder">
              {status.data.lastDownloadAt
                ? `It has been more than ${DOWNLOAD_REMINDER_DAYS} days since you last downloaded a backup.`
                : `You have not downloaded a backup in the last ${DOWNLOAD_REMINDER_DAYS} days.`}{" "}
              Download one now and keep it somewhere safe, off this server: on your computer or in cloud storage.
            </p>
          ) : null}
        </>
      )}
      <a
        href={BACKUP_DOWNLOAD_URL}
        download
        className={buttonClasses("primary", "md", "w-full")}
        onClick={() => setDownloadStarted(true)}
      >
        <Download aria-hidden="true" className="h-4 w-4" />
        Download backup
      </a>
      {downloadStarted ? (
        <p role="status" className="text-stone-700">
          Your backup is downloading. Keep the file somewhere safe, off this server.
        </p>
      ) : null}
    </DashboardCard>
  );
}
