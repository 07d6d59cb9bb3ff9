import { useMutation, useQuery } from "@tanstack/react-query";
import { AlertTriangle, BellOff, MailCheck, Send } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { cn } from "~/lib/cn";
import type { NotificationsOverview } from "~/notifications/notification-state";
import { formatSubmittedAt } from "./format-date";
import { NOTIFICATIONS_STATUS_KEY, serverMessage } from "./query-client";

/**
 * The dashboard's word on e-mail notifications (issue 9 §4): a notice that
 * stays while they are off or the last attempt failed, saying how to fix it,
 * and Send test e-mail, which reports the SMTP server's exact answer.
 */
export function NotificationsPanel() {
  const status = useQuery<NotificationsOverview>({ queryKey: NOTIFICATIONS_STATUS_KEY });
  const [testResult, setTestResult] = useState<{ ok: boolean; text: string } | null>(null);
  const sendTest = useMutation({
    mutationFn: () => apiRequest("POST", "/api/admin/notifications/test"),
    onMutate: () => setTestResult(null),
    onSuccess: () => {
      const text = `Test e-mail sent to ${status.data?.recipient ?? "the notification address"}. Check that inbox (and its spam folder).`;
      setTestResult({ ok: true, text });
      toast({ title: "Test e-mail sent", description: text });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      const text = serverMessage(error, "The test e-mail could not be sent.");
      setTestResult({ ok: false, text });
      toast({ title: "Test e-mail failed", description: text, variant: "destructive" });
    },
  });

  if (!status.data) return null;
  const { enabled, recipient, lastAttempt, failed } = status.data;
  const failing = enabled && lastAttempt !== null && !lastAttempt.ok;

  const testButton = (
    <Button variant={failing ? "primary" : "outline"} size="sm" onClick={() => sendTest.mutate()} disabled={sendTest.isPending}>
      {sendTest.isPending ? <Spinner className="h-4 w-4" /> : <Send aria-hidden="true" className="h-4 w-4" />}
      Send test e-mail
    </Button>
  );
  const result = testResult ? (
    <p role={testResult.ok ? "status" : "alert"} className={cn("mt-3 text-sm font-medium break-words", testResult.ok ? "text-emerald-800" : "text-red-800")}>
      {testResult.ok ? testResult.text : `Test e-mail failed: ${testResult.text}`}
    </p>
  ) : null;

  if (!enabled) {
    return (
      <section aria-labelledby="notifications-title" className="rounded-xl border border-amber-300 bg-amber-50 p-5 text-amber-950">
        <h2 id="notifications-title" className="flex items-center gap-2 text-lg font-bold">
          <BellOff aria-hidden="true" className="h-5 w-5 shrink-0" />
          E-mail notifications are off
        </h2>
        <p className="mt-2">
          New enquiries are saved here, but nobody is e-mailed about them. To be e-mailed about each one, set{" "}
          <code className="font-semibold">SMTP_URL</code> and <code className="font-semibold">MAIL_FROM</code> (your e-mail provider&apos;s
          sending details) in the server&apos;s settings and restart it. Until then, check this page for new enquiries.
        </p>
      </section>
    );
  }

  if (failing) {
    return (
      <section aria-labelledby="notifications-title" className="rounded-xl border border-red-300 bg-red-50 p-5 text-red-950">
        <h2 id="notifications-title" className="flex items-center gap-2 text-lg font-bold">
          <AlertTriangle aria-hidden="true" className="h-5 w-5 shrink-0" />
          E-mail notifications are failing
        </h2>
        <p className="mt-2 break-words">
          The last attempt to e-mail you ({formatSubmittedAt(lastAttempt.at)}) failed: <strong>{lastAttempt.error}</strong>
        </p>
        <p className="mt-2">
          Enquiries are still saved here, and failed e-mails are tried again for 24 hours
          {failed > 0 ? ` (${failed} gave up after 24 hours: use Send again on them in Contact Form Submissions)` : ""}. To fix it, check the mail server, user name and
          password in <code className="font-semibold">SMTP_URL</code> and the sender address in <code className="font-semibold">MAIL_FROM</code>,
          restart the server, then send a test e-mail.
        </p>
        <div className="mt-4">{testButton}</div>
        {result}
      </section>
    );
  }

  return (
    <section aria-labelledby="notifications-title" className="rounded-xl bg-white p-5 shadow-sm ring-1 ring-stone-200">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <h2 id="notifications-title" className="flex items-center gap-2 text-lg font-bold text-stone-900">
            <MailCheck aria-hidden="true" className="h-5 w-5 shrink-0 text-emerald-700" />
            E-mail notifications are on
          </h2>
          <p className="mt-1 text-sm break-words text-stone-700">
            Each new enquiry is e-mailed to <strong>{recipient}</strong>.
          </p>
        </div>
        <div className="shrink-0">{testButton}</div>
      </div>
      {result}
    </section>
  );
}
