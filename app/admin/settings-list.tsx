import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { BarChart3, ChevronRight, DatabaseBackup, History, Mail, UserCog, type LucideIcon } from "lucide-react";
import type { MouseEvent } from "react";
import type { AnalyticsReport } from "~/analytics/report";
import type { SecuritySummary } from "~/auth/security-summary";
import type { SignInMethods } from "~/auth/sign-in-methods";
import { BACKUP_STATUS_URL, type BackupStatus } from "~/backups/backup-status";
import { cn } from "~/lib/cn";
import type { NotificationsOverview } from "~/notifications/notification-state";
import { ANALYTICS_KEY } from "./visits/analytics-card";
import { SIGN_IN_METHODS_KEY } from "./account/passkey-client";
import { NOTIFICATIONS_STATUS_KEY } from "./query-client";
import {
  accountStatus,
  activityStatus,
  backupsStatus,
  emailStatus,
  visitsStatus,
  type RowStatus,
} from "./settings-status";
import { SECURITY_SUMMARY_KEY } from "./activity/sign-in-activity";
import { openerIdFor, viewHref, type AdminView, type SettingsViewKind } from "./view";

const CHECKING: RowStatus = { text: "Checking…", attention: null };
const UNAVAILABLE: RowStatus = { text: "Could not be checked just now", attention: null };

/** A row's status from its query: checking while it loads, a plain line if it fails. */
function statusOf<T>(query: UseQueryResult<T>, describe: (data: T) => RowStatus): RowStatus {
  if (query.data !== undefined) return describe(query.data);
  return query.isError ? UNAVAILABLE : CHECKING;
}

function useEmailStatus() {
  return statusOf(useQuery<NotificationsOverview>({ queryKey: NOTIFICATIONS_STATUS_KEY }), emailStatus);
}

function useAccountStatus() {
  const methods = useQuery<SignInMethods>({ queryKey: SIGN_IN_METHODS_KEY });
  const summary = useQuery<SecuritySummary>({ queryKey: SECURITY_SUMMARY_KEY });
  if (methods.isPending) return CHECKING;
  return accountStatus(methods.data, summary.data);
}

function useBackupsStatus() {
  return statusOf(useQuery<BackupStatus>({ queryKey: [BACKUP_STATUS_URL] }), (status) => backupsStatus(status));
}

function useVisitsStatus() {
  return statusOf(useQuery<AnalyticsReport>({ queryKey: ANALYTICS_KEY }), visitsStatus);
}

function useActivityStatus() {
  return statusOf(useQuery<SecuritySummary>({ queryKey: SECURITY_SUMMARY_KEY }), activityStatus);
}

/** The rows, in order: what each is called, its icon, and where its status comes from. */
const ROWS: { kind: SettingsViewKind; label: string; Icon: LucideIcon; useStatus: () => RowStatus }[] = [
  { kind: "email", label: "E-mail", Icon: Mail, useStatus: useEmailStatus },
  { kind: "account", label: "Your account", Icon: UserCog, useStatus: useAccountStatus },
  { kind: "backups", label: "Backups", Icon: DatabaseBackup, useStatus: useBackupsStatus },
  { kind: "visits", label: "Visits", Icon: BarChart3, useStatus: useVisitsStatus },
  { kind: "activity", label: "Activity", Icon: History, useStatus: useActivityStatus },
];

const MARK = { warning: "bg-amber-500", danger: "bg-red-600" } as const;
const TEXT = { warning: "font-medium text-amber-900", danger: "font-medium text-red-800" } as const;

/** "Settings and reports": one linked row per sub-view with a one-line status; attention gets a coloured mark. */
export function SettingsList({ onOpen }: { onOpen: (view: AdminView) => void }) {
  return (
    <section aria-labelledby="settings-and-reports-title">
      <h2 id="settings-and-reports-title" className="text-xl font-bold text-stone-900">
        Settings and reports
      </h2>
      <ul className="mt-3 divide-y divide-stone-200 overflow-hidden rounded-xl bg-white shadow-sm ring-1 ring-stone-200">
        {ROWS.map((row) => (
          <SettingsRow key={row.kind} {...row} onOpen={onOpen} />
        ))}
      </ul>
    </section>
  );
}

function SettingsRow({
  kind,
  label,
  Icon,
  useStatus,
  onOpen,
}: (typeof ROWS)[number] & { onOpen: (view: AdminView) => void }) {
  const { text, attention } = useStatus();
  const view: AdminView = { kind };
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    // A new tab or window opens the address itself.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onOpen(view);
  };
  return (
    <li>
      <a
        id={openerIdFor(view)!}
        href={viewHref(view)}
        onClick={follow}
        data-attention={attention ?? undefined}
        className="flex min-h-11 items-center gap-3 px-4 py-2 hover:bg-stone-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-700"
      >
        {/* On a phone the row's width goes to its words. */}
        <Icon aria-hidden="true" className="hidden h-5 w-5 shrink-0 text-brand-700 sm:block" />
        <span className="min-w-0 flex-1">
          <span className="block font-semibold text-stone-900">{label}</span>
          <span className={cn("flex items-center gap-1.5 text-sm text-stone-700", attention && TEXT[attention])}>
            {attention ? (
              <>
                <span aria-hidden="true" className={cn("h-2.5 w-2.5 shrink-0 rounded-full", MARK[attention])} />
                <span className="sr-only">Needs attention: </span>
              </>
            ) : null}
            {/* One line: a long e-mail address ends in "…" (the link's name keeps it whole). */}
            <span className="min-w-0 truncate">{text}</span>
          </span>
        </span>
        <ChevronRight aria-hidden="true" className="h-5 w-5 shrink-0 text-stone-500" />
      </a>
    </li>
  );
}
