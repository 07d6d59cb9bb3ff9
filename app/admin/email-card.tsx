import { useMutation, useQuery } from "@tanstack/react-query";
import { Mail, Send } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { cn } from "~/lib/cn";
import type { NotificationsOverview } from "~/notifications/notification-state";
import { DashboardCard, LoadFailed } from "./admin-ui";
import { formatSubmittedAt } from "./format-date";
import { OwnerNotice } from "./owner-notice";
import { NOTIFICATIONS_STATUS_KEY, serverMessage } from "./query-client";

const settings = (
  <>
    <code className="font-semibold">SMTP_URL</code> and <code className="font-semibold">MAIL_FROM</code>
  </>
);

/**
 * The dashboard's E-mail card (issue 9 §4, issue 18 §12): whether each new
 * enquiry is e-mailed, a notice in plain words while it is off or failing
 * (the settings and the SMTP server's answer under its details), and Send
 * test e-mail, which reports the SMTP server's exact answer.
 */
export function EmailCard() {
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

  return (
    <DashboardCard
      id="email"
      title="E-mail Notifications"
      description="Each new enquiry can be e-mailed to you as it arrives."
      icon={<Mail aria-hidden="true" className="h-5 w-5" />}
      bodyClassName="mt-5 grid gap-3 text-sm text-stone-800"
    >
      {status.isPending ? (
        <p role="status">Loading e-mail settings...</p>
      ) : status.isError ? (
        <LoadFailed message="Unable to load the e-mail settings." onRetry={() => void status.refetch()} retrying={status.isFetching} />
      ) : !status.data.enabled ? (
        <OwnerNotice
          tone="warning"
          title="E-mail notifications are off"
          details={
            <p>
              {settings} are not set, so no e-mail is sent. Set them to the mail provider&apos;s sending details in the
              server&apos;s settings (docs/DEPLOY.md, the mail step), restart the service, then press Send test e-mail here.
            </p>
          }
        >
          Nobody is e-mailed about new enquiries. Check this page for them, or ask whoever runs your website to turn on e-mail.
        </OwnerNotice>
      ) : (
        <>
          {status.data.lastAttempt && !status.data.lastAttempt.ok ? (
            <OwnerNotice
              tone="danger"
              title="E-mail notifications are failing"
              details={
                <>
                  <p>
                    The last attempt ({formatSubmittedAt(status.data.lastAttempt.at)}) failed: <strong>{status.data.lastAttempt.error}</strong>
                  </p>
                  <p>
                    Failed e-mails are tried again for 24 hours
                    {status.data.failed > 0
                      ? ` (${status.data.failed} gave up after 24 hours: use Send again on them in Contact Form Submissions)`
                      : ""}
                    . Check the mail server, user name and password in <code className="font-semibold">SMTP_URL</code> and the
                    sender address in <code className="font-semibold">MAIL_FROM</code>, restart the service, then send a test e-mail.
                  </p>
                </>
              }
            >
              The last e-mail about an enquiry could not be sent. Enquiries are still saved here. Ask whoever runs your website to look at it.
            </OwnerNotice>
          ) : null}
          <p className="break-words">
            Each new enquiry is e-mailed to <strong>{status.data.recipient}</strong>.
          </p>
          <Button variant="outline" className="w-full" onClick={() => sendTest.mutate()} disabled={sendTest.isPending}>
            {sendTest.isPending ? <Spinner className="h-4 w-4" /> : <Send aria-hidden="true" className="h-4 w-4" />}
            Send test e-mail
          </Button>
          {testResult ? (
            <p role={testResult.ok ? "status" : "alert"} className={cn("font-medium break-words", testResult.ok ? "text-emerald-800" : "text-red-800")}>
              {testResult.ok ? testResult.text : `Test e-mail failed: ${testResult.text}`}
            </p>
          ) : null}
        </>
      )}
    </DashboardCard>
  );
}
