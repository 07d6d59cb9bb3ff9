import { DETAILS_HEADING } from "~/lib/plain-words";
import {
  DetailsTable,
  MAIL_STYLE,
  MailDocument,
  MailLink,
  PreformattedSection,
  renderMailHtml,
  type MailParts,
} from "./mail-layout.server";

/** The owner's alerts: what the mail says → its text and HTML. */

export type SignInAlertView = {
  subject: string;
  lead: string;
  time: string;
  browser: string;
  advice: string;
  details: string[];
};

export function signInAlertParts(alert: SignInAlertView): MailParts {
  const text = [
    alert.lead,
    "",
    `Time:    ${alert.time}`,
    `Browser: ${alert.browser}`,
    "",
    alert.advice,
    "",
    `${DETAILS_HEADING}:`,
    ...alert.details,
    "",
  ].join("\n");
  const html = renderMailHtml(
    <MailDocument subject={alert.subject}>
      <p style={MAIL_STYLE.paragraph}>{alert.lead}</p>
      <DetailsTable
        rows={[
          { label: "Time", value: alert.time },
          { label: "Browser", value: alert.browser },
        ]}
      />
      <p style={{ margin: "16px 0" }}>{alert.advice}</p>
      <PreformattedSection heading={DETAILS_HEADING} text={alert.details.join("\n")} />
    </MailDocument>,
  );
  return { subject: alert.subject, text, html };
}

export type TestMailView = { subject: string; body: string };

export function testMailParts(test: TestMailView): MailParts {
  const html = renderMailHtml(
    <MailDocument subject={test.subject}>
      <p>{test.body}</p>
    </MailDocument>,
  );
  return { subject: test.subject, text: `${test.body}\n`, html };
}

export type OffsiteFailingView = {
  subject: string;
  lead: string;
  since: string;
  details: string[];
  dashboardUrl: string;
};

export function offsiteFailingParts(alert: OffsiteFailingView): MailParts {
  const text = [
    alert.lead,
    "",
    alert.since,
    "",
    `${DETAILS_HEADING}:`,
    ...alert.details,
    "",
    `Dashboard: ${alert.dashboardUrl}`,
    "",
  ].join("\n");
  const html = renderMailHtml(
    <MailDocument subject={alert.subject}>
      <p style={MAIL_STYLE.paragraph}>{alert.lead}</p>
      <p style={MAIL_STYLE.paragraph}>{alert.since}</p>
      <PreformattedSection heading={DETAILS_HEADING} text={alert.details.join("\n")} />
      <p style={{ margin: "16px 0 0" }}>
        <MailLink href={alert.dashboardUrl}>Open the dashboard</MailLink>
      </p>
    </MailDocument>,
  );
  return { subject: alert.subject, text, html };
}

/** `browser` is null when the change was made on the server. */
export type SecurityNoticeView = {
  subject: string;
  what: string;
  time: string;
  browser: string | null;
  ifNotYou: string;
};

export function securityNoticeParts(notice: SecurityNoticeView): MailParts {
  const lines = [
    `Time:    ${notice.time}`,
    notice.browser === null ? "Where:   on the server" : `Browser: ${notice.browser}`,
  ];
  const text = [notice.what, "", ...lines, "", "If this was you, there is nothing to do.", notice.ifNotYou, ""].join(
    "\n",
  );
  const html = renderMailHtml(
    <MailDocument subject={notice.subject}>
      <p style={MAIL_STYLE.paragraph}>{notice.what}</p>
      <p style={MAIL_STYLE.paragraph}>
        {lines[0]}
        <br />
        {lines[1]}
      </p>
      <p style={{ margin: "0 0 8px" }}>If this was you, there is nothing to do.</p>
      <p style={{ margin: 0 }}>
        <strong>{notice.ifNotYou}</strong>
      </p>
    </MailDocument>,
  );
  return { subject: notice.subject, text, html };
}
