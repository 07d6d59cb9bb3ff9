import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { digestMail, enquiryMail, morePhotosMail } from "./enquiry-mails.server";
import type { OutgoingMail } from "./mailer.server";
import {
  offsiteFailingMail,
  SECURITY_NOTICE_KINDS,
  securityNoticeMail,
  signInAlertMail,
  testMail,
} from "./messages.server";

/**
 * Every mail the site sends, both parts, from data full of characters that
 * HTML must escape: the snapshots show them escaped in the HTML and as typed
 * in the text. The HTML is split at tag boundaries so a change reads as a diff.
 */

const ctx = {
  from: { name: null, address: "site@example.nz" },
  to: "owner@example.nz",
  siteUrl: "https://stone.example.nz",
};
const AT = "2025-07-02T23:30:00.000Z";
const HOSTILE = `<script>alert("x")</script> & 'quoted'`;
const USER_AGENT = `Mozilla/5.0 <script>alert(1)</script> "quoted" & 'single'`;

const enquiry = {
  id: "e1",
  name: `Tom "T" O'Brien <script>alert(1)</script> & Co`,
  email: "tom@example.nz",
  phone: "+64 27 555 0184 & <b>ext 2</b>",
  message: `Hi & welcome,\n${HOSTILE}\nA wall of "basalt" <about 12 m>.`,
  submittedAt: AT,
};
const attachment = (n: number) => ({
  filename: `enquiry-photo-${n}.jpg`,
  contentType: "image/jpeg",
  content: Readable.from([]),
});

const parts = (mail: OutgoingMail) => ({
  subject: mail.subject,
  text: mail.text,
  html: mail.html.replace(/></g, ">\n<"),
});

/** Every mail, by name, built from the hostile data. */
const MAILS: Record<string, () => OutgoingMail> = {
  enquiry: () =>
    enquiryMail(ctx, { ...enquiry, photosNotAttached: 2 }, "<enquiry-e1@example.nz>", {
      attachments: [attachment(1)],
      unreadable: 1,
    }),
  "enquiry without photos or phone": () => enquiryMail(ctx, { ...enquiry, phone: null }, "<enquiry-e1@example.nz>"),
  "more photos": () =>
    morePhotosMail(ctx, { ...enquiry, photosNotAttached: 1 }, "<more-photos-1@example.nz>", {
      attachments: [attachment(2), attachment(3)],
      unreadable: 0,
    }),
  digest: () =>
    digestMail(
      ctx,
      [enquiry, { ...enquiry, id: "e2", name: `Ana & "Bo" <i>` }],
      "2025-07-02T23:00:00.000Z",
      "<digest@example.nz>",
      new Map([["e1", 3]]),
    ),
  "sign-in alert": () =>
    signInAlertMail(ctx, { at: AT, address: "203.0.113.7 <&>", userAgent: USER_AGENT }, "<sign-in-1@example.nz>"),
  "test e-mail": () => testMail({ ...ctx, to: `o'brien&"co"@example.nz` }, AT, "<test-1@example.nz>"),
  "off-site failing": () =>
    offsiteFailingMail(
      ctx,
      { failures: 4, lastCopyAt: AT, where: `bucket "<b>backups</b>" & co`, message: HOSTILE },
      "<offsite-1@example.nz>",
    ),
  "off-site failing, nothing recorded": () => offsiteFailingMail(ctx, null, "<offsite-2@example.nz>"),
};

for (const kind of SECURITY_NOTICE_KINDS) {
  MAILS[`security notice ${kind}`] = () =>
    securityNoticeMail(
      ctx,
      {
        kind,
        at: AT,
        userAgent: kind === "two-step-lost-in-restore" ? "" : USER_AGENT,
        passkeyName: `Mark's <script>alert(1)</script> & "quoted"`,
        passkeyNames: kind === "passkey-removed" ? [`Mark's <b>iPhone</b>`, `"quoted" & laptop`] : undefined,
        previousAddress: kind === "contact-email-changed" ? `old&"co"@example.nz` : undefined,
        newAddress: kind === "contact-email-changed" ? "<new>@example.nz" : undefined,
      },
      `<security-${kind}@example.nz>`,
    );
}

describe("every mail's two parts", () => {
  it.each(Object.keys(MAILS))("%s", (name) => {
    expect(parts(MAILS[name]!())).toMatchSnapshot();
  });
});

/** What a visitor or a browser typed, and how it must appear in the HTML. */
const ESCAPED: Record<string, string> = {
  "<script>": "&lt;script&gt;",
  '"quoted"': "&quot;quoted&quot;",
  "'quoted'": "&#x27;quoted&#x27;",
  " & ": " &amp; ",
  "<b>": "&lt;b&gt;",
};
/** Which of them each mail carries (the test e-mail's address has its own). */
const CARRIES: Record<string, string[]> = {
  enquiry: ["<script>", "'quoted'", " & ", "<b>"],
  "enquiry without photos or phone": ["<script>", "'quoted'", " & "],
  "more photos": ["<script>", " & "],
  digest: ["<script>", "'quoted'", " & ", "<b>"],
  "sign-in alert": ["<script>", '"quoted"', " & "],
  "off-site failing": ["<script>", "'quoted'", " & ", "<b>"],
  "security notice passkey-added": ["<script>", '"quoted"', " & "],
  "security notice passkey-removed": ["<b>", " & ", '"quoted"'],
};

describe("every mail escapes what it was given in its HTML, and keeps it as typed in its text", () => {
  it.each(Object.keys(MAILS))("%s", (name) => {
    const mail = MAILS[name]!();
    const body = mail.html.slice(mail.html.indexOf("<body"));
    // The only markup is the template's own: no tag the data could have opened.
    expect(body).not.toMatch(/<(script|b|i)[\s>]/);
    // Every ampersand in the HTML starts an entity.
    expect(mail.html).not.toMatch(/&(?!(amp|lt|gt|quot|#x27);)/);
    for (const typed of CARRIES[name] ?? []) {
      expect(mail.text).toContain(typed);
      expect(body).toContain(ESCAPED[typed]);
    }
    for (const entity of ["&lt;", "&gt;", "&amp;", "&quot;", "&#x27;"]) expect(mail.text).not.toContain(entity);
  });

  it("the test e-mail's address, as typed in its text and escaped in its HTML", () => {
    const mail = MAILS["test e-mail"]!();
    expect(mail.text).toContain(`o'brien&"co"@example.nz`);
    expect(mail.html).toContain("o&#x27;brien&amp;&quot;co&quot;@example.nz");
  });
});
