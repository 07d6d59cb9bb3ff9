import { useMutation, useQuery } from "@tanstack/react-query";
import { Send } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import type { NotificationsOverview } from "~/notifications/notification-state";
import { LoadFailed, SettingsView } from "../admin-ui";
import { formatSubmittedAt } from "~/lib/format-date";
import { OwnerNotice, TechnicalDetails } from "../owner-notice";
import { NOTIFICATIONS_STATUS_KEY, serverMessage } from "../query-client";

const settings = (
  <>
    <code className="font-semibold">SMTP_URL</code> and <code className="font-semibold">MAIL_FROM</code>
  </>
);

/** The notice while e-mail is off or failing; the settings and SMTP answer under the details. */
export function EmailStatusNotice({ status }: { status: NotificationsOverview }) {
  if (!status.enabled) {
    return (
      <OwnerNotice
        tone="warning"
        title="E-mail notifications are off"
        details={
          <p>
            {settings} are not set, so no e-mail is sent. Set them to the mail provider&apos;s sending details in the
            server&apos;s settings (docs/DEPLOY.md, the mail step), restart the service, then press Send test e-mail in
            the E-mail view.
          </p>
        }
      >
        Nobody is e-mailed about new enquiries. Check this page for them, or ask whoever runs your website to turn on
        e-mail.
      </OwnerNotice>
    );
  }
  if (!status.lastAttempt || status.lastAttempt.ok) return null;
  return (
    <OwnerNotice
      tone="danger"
      title="E-mail notifications are failing"
      details={
        <>
          <p>
            The last attempt ({formatSubmittedAt(status.lastAttempt.at)}) failed:{" "}
            <strong>{status.lastAttempt.error}</strong>
          </p>
          <p>
            Failed e-mails are tried again for 24 hours
            {status.failed > 0
              ? ` (${status.failed} gave up after 24 hours: use Send again on them in Contact Form Submissions)`
              : ""}
            . Check the mail server, user name and password in <code className="font-semibold">SMTP_URL</code> and the
            sender address in <code className="font-semibold">MAIL_FROM</code>, restart the service, then send a test
            e-mail.
          </p>
        </>
      }
    >
      The last e-mail about an enquiry could not be sent. Enquiries are still saved here. Ask whoever runs your website
      to look at it.
    </OwnerNotice>
  );
}

/** The dashboard's e-mail notice: shown only while e-mail is off or failing. */
export function DashboardEmailNotice() {
  const status = useQuery<NotificationsOverview>({ queryKey: NOTIFICATIONS_STATUS_KEY });
  return status.data ? <EmailStatusNotice status={status.data} /> : null;
}

type TestResult = { ok: true; text: string } | { ok: false; serverAnswer: string };

/** The E-mail view: whether enquiries are e-mailed and to whom, the notice, and Send test e-mail. */
export function EmailCard({ onBack }: { onBack: () => void }) {
  const status = useQuery<NotificationsOverview>({ queryKey: NOTIFICATIONS_STATUS_KEY });
  const [testResult, setTestResult] = useState<TestResult | null>(null);
  const sendTest = useMutation({
    mutationFn: () => apiRequest("POST", "/api/admin/notifications/test"),
    onMutate: () => setTestResult(null),
    onSuccess: () => {
      const recipient = status.data?.recipient ?? "the notification address";
      setTestResult({ ok: true, text: `Test e-mail sent to ${recipient}. Check that inbox (and its spam folder).` });
      toast({ title: "Test e-mail sent", description: `Check the inbox of ${recipient}.` });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      setTestResult({ ok: false, serverAnswer: serverMessage(error, "The server gave no reason.") });
      toast({ title: "Test e-mail failed", description: TEST_FAILED, variant: "destructive" });
    },
  });

  return (
    <SettingsView
      title="E-mail Notifications"
      description="Each new enquiry can be e-mailed to you as it arrives."
      onBack={onBack}
      bodyClassName="grid gap-3 text-sm text-stone-800"
    >
      {status.isPending ? (
        <p role="status">Loading e-mail settings...</p>
      ) : status.isError ? (
        <LoadFailed
          message="Unable to load the e-mail settings."
          onRetry={() => void status.refetch()}
          retrying={status.isFetching}
        />
      ) : (
        <>
          <EmailStatusNotice status={status.data} />
          {status.data.enabled ? (
            <>
              <p className="break-words">
                Each new enquiry is e-mailed to <strong>{status.data.recipient}</strong>.
              </p>
              <Button
                variant="outline"
                className="w-full"
                onClick={() => sendTest.mutate()}
                disabled={sendTest.isPending}
              >
                {sendTest.isPending ? <Spinner className="h-4 w-4" /> : <Send aria-hidden="true" className="h-4 w-4" />}
                Send test e-mail
              </Button>
              {testResult?.ok ? (
                <p role="status" className="font-medium break-words text-emerald-800">
                  {testResult.text}
                </p>
              ) : testResult ? (
                <div className="text-red-800">
                  <p role="alert" className="font-medium">
                    {TEST_FAILED}
                  </p>
                  <TechnicalDetails>
                    <p>The mail server answered: {testResult.serverAnswer}</p>
                  </TechnicalDetails>
                </div>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </SettingsView>
  );
}

const TEST_FAILED = "The test e-mail could not be sent. Ask whoever runs your website to look at it.";
