import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { useState } from "react";
import {
  BACKUP_DOWNLOAD_URL,
  BACKUP_STATUS_URL,
  DOWNLOAD_REMINDER_DAYS,
  type BackupStatus,
} from "~/backups/backup-status";
import { buttonClasses } from "~/components/ui/button";
import { formatFileSize } from "~/lib/plain-words";
import { LoadFailed, SettingsView } from "../admin-ui";
import { formatSubmittedAt } from "~/lib/format-date";
import { OwnerNotice } from "../owner-notice";
import { OffsiteBackupStatus } from "./offsite-backup-status";

const PROBLEM_LEAD: Record<NonNullable<BackupStatus["problem"]>["kind"], string> = {
  failed: "The last backup failed",
  skipped: "A backup was skipped",
  warning: "The last backup finished with a warning",
};

/** What the owner reads; the lead above goes under the details. */
const PROBLEM_SENTENCE: Record<NonNullable<BackupStatus["problem"]>["kind"], string> = {
  failed: "Your site could not make its last backup. Ask whoever runs your website to look at it.",
  skipped: "Your site skipped its last backup. Ask whoever runs your website to look at it.",
  warning: "Your site made its last backup, with a warning. Ask whoever runs your website to look at it.",
};

const when = (iso: string) => <time dateTime={iso}>{formatSubmittedAt(iso)}</time>;

/** What the downloaded file is for; the passphrase is named only when backups are encrypted. */
export function downloadPurpose(encrypted: boolean | undefined): string {
  return `Keep it somewhere safe. Whoever runs your website can restore the site from it${encrypted ? ", with the backup passphrase" : ""}.`;
}

/** Download is a plain link the browser streams to a file; the view counts it at once, the server when it ends. */
export function BackupCard({ onBack }: { onBack: () => void }) {
  const status = useQuery<BackupStatus>({ queryKey: [BACKUP_STATUS_URL] });
  const queryClient = useQueryClient();
  const [downloadStarted, setDownloadStarted] = useState(false);
  const startDownload = () => {
    setDownloadStarted(true);
    const at = new Date().toISOString();
    queryClient.setQueryData<BackupStatus>(
      [BACKUP_STATUS_URL],
      (old) => old && { ...old, lastDownloadAt: at, downloadReminder: false },
    );
  };

  return (
    <SettingsView
      title="Backups"
      description="A copy of every text, photo and enquiry on the website."
      onBack={onBack}
      bodyClassName="grid gap-3 text-sm text-stone-800"
    >
      {status.isPending ? (
        <p role="status">Loading backup status...</p>
      ) : status.isError ? (
        <LoadFailed
          message="Unable to load the backup status."
          onRetry={() => void status.refetch()}
          retrying={status.isFetching}
        />
      ) : (
        <>
          <p>
            {status.data.lastBackup ? (
              <>
                Last backup: {when(status.data.lastBackup.at)} ({formatFileSize(status.data.lastBackup.bytes)})
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
          <OffsiteBackupStatus offsite={status.data.offsite} />
          {status.data.problem ? (
            <OwnerNotice
              tone="danger"
              title="Backup problem"
              testId="backup-problem"
              details={
                <p>
                  {PROBLEM_LEAD[status.data.problem.kind]} ({when(status.data.problem.at)}):{" "}
                  {status.data.problem.message}
                </p>
              }
            >
              {PROBLEM_SENTENCE[status.data.problem.kind]}
            </OwnerNotice>
          ) : null}
          {status.data.foreignBackups.length ? (
            <div
              className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-amber-900"
              data-testid="foreign-backups"
            >
              <h2 className="font-semibold">Backups this site did not make</h2>
              <p>
                These files are not named with this site's key, so they are never deleted or counted among its backups.
                Check where they came from.
              </p>
              <ul className="mt-1 list-disc pl-5 break-all">
                {status.data.foreignBackups.map((file) => (
                  <li key={`${file.location}/${file.name}`}>
                    {file.name} ({file.location === "bucket" ? "in the bucket" : "on the server"})
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <p>
            {status.data.lastDownloadAt ? (
              <>Last downloaded: {when(status.data.lastDownloadAt)}</>
            ) : (
              "Not downloaded yet."
            )}
          </p>
          {status.data.downloadReminder ? (
            <p
              className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-amber-900"
              data-testid="backup-reminder"
            >
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
        onClick={startDownload}
      >
        <Download aria-hidden="true" className="h-4 w-4" />
        Download backup
      </a>
      <p className="text-stone-700" data-testid="download-purpose">
        {downloadPurpose(status.data?.offsite.encrypted)}
      </p>
      {downloadStarted ? (
        <p role="status" className="font-medium text-stone-900">
          Your backup is downloading.
        </p>
      ) : null}
    </SettingsView>
  );
}
