import { useQuery } from "@tanstack/react-query";
import { ShieldAlert } from "lucide-react";
import type { SecuritySummary, SignInReport } from "~/auth/security-summary";
import { plural } from "~/lib/plural";
import { formatSubmittedAt } from "~/lib/format-date";

export const SECURITY_SUMMARY_KEY = ["/api/admin/security/summary"] as const;

/** "5 failed sign-in attempts from 3 different addresses" (with "more than" when the count is capped). */
export function describeFailures(report: SignInReport): string {
  const attempts = plural(report.failedAttempts, "failed sign-in attempt", "failed sign-in attempts");
  const addresses = `${report.moreAddresses ? "more than " : ""}${plural(report.addresses, "address", "different addresses")}`;
  return `${attempts} from ${addresses}`;
}

/** After a good sign-in: the failed attempts since the one before, so the owner notices guessing. */
export function SignInActivity() {
  const summary = useQuery<SecuritySummary>({ queryKey: SECURITY_SUMMARY_KEY });
  // Not essential: while loading, or if it fails, the dashboard shows nothing here.
  const report = summary.data?.failedSignInsBeforeThisSession;
  if (!report) return null;

  // None: the dashboard's Activity row says "No failed sign-ins".
  if (report.failedAttempts === 0) return null;
  const first = report.firstFailedAt ? formatSubmittedAt(report.firstFailedAt) : null;
  const last = report.lastFailedAt ? formatSubmittedAt(report.lastFailedAt) : null;
  return (
    <section
      data-testid="sign-in-activity"
      aria-labelledby="sign-in-activity-title"
      className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-amber-950 sm:p-5"
    >
      <h2 id="sign-in-activity-title" className="flex items-center gap-2 text-lg font-bold">
        <ShieldAlert aria-hidden="true" className="h-5 w-5 shrink-0" />
        Failed sign-in attempts
      </h2>
      <p className="mt-2">
        Since your last sign-in: <strong>{describeFailures(report)}</strong>
        {first && last ? (first === last ? `, on ${first}` : `, between ${first} and ${last}`) : null}.
      </p>
      <p className="mt-2 text-sm">
        If that was not you, your password kept them out, and repeated attempts are slowed down. To be safe, change your
        password to a long one you use nowhere else.
      </p>
    </section>
  );
}
