import {
  DetailsTable,
  MAIL_STYLE,
  MailDocument,
  MailLink,
  PreformattedSection,
  renderMailHtml,
  type MailParts,
} from "./mail-layout.server";

/** The enquiry e-mail and the hourly digest: what the mail says → its text and HTML. */

/** One enquiry as a mail shows it: one-line fields, the time in words, and a dialable tel: link when the phone is a number. */
export type EnquiryDetails = {
  name: string;
  email: string;
  phone: string | null;
  tel: string | null;
  received: string;
  message: string;
};

function enquiryLines(enquiry: EnquiryDetails): string[] {
  return [
    `Name:     ${enquiry.name}`,
    `Email:    ${enquiry.email}`,
    ...(enquiry.phone ? [`Phone:    ${enquiry.phone}${enquiry.tel ? ` (${enquiry.tel})` : ""}`] : []),
    `Received: ${enquiry.received}`,
    "",
    "Message:",
    enquiry.message,
  ];
}

function EnquiryDetailsHtml({ enquiry }: { enquiry: EnquiryDetails }) {
  const phone =
    enquiry.phone && (enquiry.tel ? <MailLink href={enquiry.tel}>{enquiry.phone}</MailLink> : enquiry.phone);
  return (
    <>
      <DetailsTable
        rows={[
          { label: "Name", value: enquiry.name },
          { label: "Email", value: <MailLink href={`mailto:${enquiry.email}`}>{enquiry.email}</MailLink> },
          ...(phone ? [{ label: "Phone", value: phone }] : []),
          { label: "Received", value: enquiry.received },
        ]}
      />
      <PreformattedSection heading="Message" text={enquiry.message} margin="20px 0 0" />
    </>
  );
}

function AllEnquiriesLink({ inboxUrl }: { inboxUrl: string }) {
  return (
    <p style={{ margin: "8px 0 0" }}>
      <MailLink href={inboxUrl}>See all enquiries in the admin</MailLink>
    </p>
  );
}

/** `photoLines`: what the mail says of the photos it carries ("2 photos are attached."), none without photos. */
export type EnquiryView = {
  subject: string;
  intro: string;
  enquiry: EnquiryDetails;
  photoLines: string[];
  inboxUrl: string;
};

export function enquiryParts({ subject, intro, enquiry, photoLines, inboxUrl }: EnquiryView): MailParts {
  const reply = `Press Reply to answer ${enquiry.name} directly.`;
  const text = [
    intro,
    "",
    ...enquiryLines(enquiry),
    "",
    ...(photoLines.length > 0 ? [...photoLines, ""] : []),
    reply,
    `All enquiries: ${inboxUrl}`,
    "",
  ].join("\n");
  const html = renderMailHtml(
    <MailDocument subject={subject}>
      <EnquiryDetailsHtml enquiry={enquiry} />
      {photoLines.map((line) => (
        <p key={line} style={{ margin: "16px 0 0", fontWeight: 600 }}>
          {line}
        </p>
      ))}
      <p style={{ margin: "24px 0 0", ...MAIL_STYLE.muted }}>{reply}</p>
      <AllEnquiriesLink inboxUrl={inboxUrl} />
    </MailDocument>,
  );
  return { subject, text, html };
}

/** Each enquiry with what the digest says of its photos ("3 photos: see them in the inbox: …"), null without any. */
export type DigestView = {
  subject: string;
  why: string;
  enquiries: { details: EnquiryDetails; photos: string | null }[];
  inboxUrl: string;
};

export function digestParts({ subject, why, enquiries, inboxUrl }: DigestView): MailParts {
  const count = enquiries.length;
  const text = [
    subject,
    "",
    why,
    "",
    ...enquiries.flatMap(({ details, photos }, i) => [
      `--- ${i + 1} of ${count} ---`,
      ...enquiryLines(details),
      ...(photos ? ["", photos] : []),
      "",
    ]),
    `All enquiries: ${inboxUrl}`,
    "",
  ].join("\n");
  const html = renderMailHtml(
    <MailDocument subject={subject}>
      <p style={{ ...MAIL_STYLE.paragraph, ...MAIL_STYLE.muted }}>{why}</p>
      {enquiries.map(({ details, photos }, i) => (
        <div key={i} style={{ borderTop: "1px solid #e7e5e4", padding: "16px 0" }}>
          <EnquiryDetailsHtml enquiry={details} />
          {photos && (
            <p style={{ margin: "16px 0 0", fontWeight: 600 }}>
              <MailLink href={inboxUrl}>{photos}</MailLink>
            </p>
          )}
        </div>
      ))}
      <AllEnquiriesLink inboxUrl={inboxUrl} />
    </MailDocument>,
  );
  return { subject, text, html };
}
