import { describe, expect, it } from "vitest";
import { digestMail, enquiryMail } from "./enquiry-mails.server";
import { businessTime, securityNoticeMail, signInAlertMail } from "./messages.server";

const ctx = {
  from: { name: null, address: "site@example.nz" },
  to: "owner@example.nz",
  siteUrl: "https://stone.example.nz",
};
const enquiry = {
  id: "e1",
  name: "Tom <b>",
  email: "tom@example.nz",
  phone: "call after 5",
  message: "Hi & <hello>",
  submittedAt: "2025-07-02T23:30:00.000Z",
};

describe("the notification e-mails", () => {
  it("escape every character that could open markup or an attribute", () => {
    const mail = enquiryMail(ctx, { ...enquiry, message: `<a href="x" onclick='y'>&</a>` }, "<x@y>");
    expect(mail.html).toContain("&lt;a href=&quot;x&quot; onclick=&#x27;y&#x27;&gt;&amp;&lt;/a&gt;");
  });

  it("write the time in New Zealand time, named", () => {
    expect(businessTime("2025-07-02T23:30:00.000Z")).toBe("July 3rd, 2025 at 11:30 AM (New Zealand Standard Time)");
    expect(businessTime("2024-01-01T02:00:00.000Z")).toBe("January 1st, 2024 at 3:00 PM (New Zealand Daylight Time)");
  });

  it("name the business as the sender when MAIL_FROM has no name, and link a phone only when it has digits", () => {
    const mail = enquiryMail(ctx, enquiry, "<enquiry-e1@example.nz>");
    expect(mail.from).toEqual({ name: "Cornerstone Stonemasonry website", address: "site@example.nz" });
    expect(mail.html).toContain("Tom &lt;b&gt;");
    expect(mail.html).toContain("Hi &amp; &lt;hello&gt;");
    expect(mail.html).toContain("call after 5");
    expect(mail.html).not.toContain("tel:5");
    const dialable = enquiryMail(ctx, { ...enquiry, phone: "+64 (27) 555-0184" }, "<x@y>");
    expect(dialable.html).toContain('href="tel:+64275550184"');
  });

  it("a digest lists every enquiry and sets no Reply-To", () => {
    const mail = digestMail(
      ctx,
      [enquiry, { ...enquiry, id: "e2", name: "Ana" }],
      "2025-07-02T23:00:00.000Z",
      "<digest@y>",
    );
    expect(mail.subject).toBe("2 more enquiries from the website");
    expect(mail.replyTo).toBeNull();
    expect(mail.text).toContain("--- 1 of 2 ---");
    expect(mail.text).toContain("Ana");
  });
});

describe("the browser in the e-mails", () => {
  const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:126.0) Gecko/20100101 Firefox/126.0";

  it("is named by the shared describer, as the security log names it (a Mac, never macOS)", () => {
    const alert = signInAlertMail(
      ctx,
      { at: "2025-07-02T23:30:00.000Z", address: "203.0.113.7", userAgent: MAC },
      "<a@b>",
    );
    expect(alert.text).toContain("Browser: Firefox on a Mac");
    const notice = securityNoticeMail(
      ctx,
      { kind: "password-changed", at: "2025-07-02T23:30:00.000Z", userAgent: MAC },
      "<c@d>",
    );
    expect(notice.text).toContain("Browser: Firefox on a Mac");
    expect(
      securityNoticeMail(
        ctx,
        { kind: "password-changed", at: "2025-07-02T23:30:00.000Z", userAgent: "curl/8.5.0" },
        "<e@f>",
      ).text,
    ).toContain("Browser: an unknown browser");
  });

  it("the sign-in alert keeps the address and the user agent under the details for whoever runs the website", () => {
    const alert = signInAlertMail(
      ctx,
      { at: "2025-07-02T23:30:00.000Z", address: "203.0.113.7", userAgent: MAC },
      "<a@b>",
    );
    const [owner, details] = alert.text.split("Details for whoever runs your website:");
    expect(owner).not.toContain("203.0.113.7");
    expect(owner).not.toContain(MAC);
    expect(details).toContain("Address:    203.0.113.7");
    expect(details).toContain(`User agent: ${MAC}`);
    expect(alert.html.indexOf("203.0.113.7")).toBeGreaterThan(
      alert.html.indexOf("Details for whoever runs your website"),
    );
  });
});
