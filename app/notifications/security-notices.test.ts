import { describe, expect, it } from "vitest";
import { securityNoticeMail, type SecurityNoticeKind } from "./messages.server";

const ctx = {
  from: { name: null, address: "site@example.nz" },
  to: "owner@example.nz",
  siteUrl: "https://stone.example.nz",
};
const PHONE =
  "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36";

// Each security e-mail says what happened and what to do if it was not the owner.
describe("the security notice e-mails", () => {
  it.each<[SecurityNoticeKind, RegExp, RegExp]>([
    ["passkey-added", /A passkey was added/, /remove that passkey under Your Account/],
    ["two-step-off", /Two-step verification was turned off/, /turn two-step verification on again/],
    ["recovery-codes-renewed", /New recovery codes were made/, /Sign Out Everywhere/],
    ["password-changed", /The website admin password was changed/, /npm run admin:password/],
    ["recovery-code-used", /A recovery code was used/, /make new recovery codes/],
  ])("%s", (kind, subject, advice) => {
    const mail = securityNoticeMail(
      ctx,
      { kind, at: "2025-07-02T23:30:00.000Z", userAgent: PHONE, passkeyName: "Mark's <iPhone>" },
      "<security-1@example.nz>",
    );
    expect(mail.subject).toMatch(subject);
    expect(mail.to).toBe("owner@example.nz");
    expect(mail.text).toContain("If this was not you");
    expect(mail.text).toMatch(advice);
    expect(mail.text).toContain("Chrome on an Android phone");
    expect(mail.text).toContain("July 3rd, 2025 at 11:30 AM");
    expect(mail.html).not.toContain("<iPhone>");
  });

  it("two-step lost in a restore: the restore's words, and made on the server rather than in a browser", () => {
    const mail = securityNoticeMail(
      ctx,
      { kind: "two-step-lost-in-restore", at: "2025-07-02T23:30:00.000Z", userAgent: "" },
      "<security-2@example.nz>",
    );
    expect(mail.subject).toBe("Two-step verification was turned off when the website was restored");
    expect(mail.text).toContain("Two-step verification was turned off when this site was restored. Turn it on again.");
    expect(mail.text).toContain("Where:   on the server");
    expect(mail.text).not.toContain("Browser:");
  });
});
