import type { CSSProperties, ReactElement, ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";

/** The parts of every e-mail's HTML: React escapes all data; styles are inline, as mail programs need. */

export const MAIL_STYLE = {
  body: {
    margin: 0,
    padding: 24,
    background: "#f5f5f4",
    fontFamily: "-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif",
    color: "#1c1917",
  },
  card: { maxWidth: 600, margin: "0 auto", background: "#ffffff", borderRadius: 12, padding: 24 },
  heading: { margin: "0 0 16px", fontSize: 22 },
  label: { padding: "6px 16px 6px 0", verticalAlign: "top", fontWeight: 600, color: "#57534e", whiteSpace: "nowrap" },
  value: { padding: "6px 0", verticalAlign: "top" },
  table: { borderCollapse: "collapse", fontSize: 16 },
  /** Text as typed, line breaks kept: an enquiry's message, technical details. */
  preformatted: { whiteSpace: "pre-wrap", wordWrap: "break-word", margin: "8px 0 0", fontSize: 16, lineHeight: 1.5 },
  link: { color: "#9a3412" },
  paragraph: { margin: "0 0 16px" },
  muted: { color: "#57534e" },
} satisfies Record<string, CSSProperties>;

/** What a mail says, in its two parts, both made from the same data. */
export type MailParts = { subject: string; text: string; html: string };

/** A mail's HTML part: the doctype, then the rendered document. */
export function renderMailHtml(document: ReactElement): string {
  return `<!doctype html>${renderToStaticMarkup(document)}`;
}

/** The page around every mail: a white card on a stone-grey background, its subject as title and heading. */
export function MailDocument({ subject, children }: { subject: string; children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width" />
        <title>{subject}</title>
      </head>
      <body style={MAIL_STYLE.body}>
        <div style={MAIL_STYLE.card}>
          <h1 style={MAIL_STYLE.heading}>{subject}</h1>
          {children}
        </div>
      </body>
    </html>
  );
}

/** Labelled values, one row each ("Name", "Received"). */
export function DetailsTable({ rows }: { rows: { label: string; value: ReactNode }[] }) {
  return (
    <table role="presentation" cellPadding={0} cellSpacing={0} style={MAIL_STYLE.table}>
      <tbody>
        {rows.map((row) => (
          <tr key={row.label}>
            <th scope="row" style={MAIL_STYLE.label} align="left">
              {row.label}
            </th>
            <td style={MAIL_STYLE.value}>{row.value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function MailLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <a style={MAIL_STYLE.link} href={href}>
      {children}
    </a>
  );
}

/** A heading in grey over text kept as typed, line breaks and all (the message, the technical details). */
export function PreformattedSection({
  heading,
  text,
  margin = "0",
}: {
  heading: string;
  text: string;
  margin?: string;
}) {
  return (
    <>
      <p style={{ margin, fontWeight: 600, color: "#57534e" }}>{heading}</p>
      <p style={MAIL_STYLE.preformatted}>{text}</p>
    </>
  );
}
