import { Secret, TOTP } from "otpauth";
import { afterEach, describe, expect, it } from "vitest";
import { identity } from "~/identity";
import { createSoftwareAuthenticator } from "../support/software-authenticator";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { ADMIN, acquireBackend } from "./helpers";
import { createMailContext, type MailContext } from "./mail-helpers";

/**
 * Every change to how the owner signs in is e-mailed to the owner, through the real outbox and a
 * real SMTP server; and a change of the contact address (where the e-mails go without
 * NOTIFY_EMAIL) is e-mailed to the previous address too, so a stolen session cannot first move
 * the owner's e-mails elsewhere and then change the sign-in unseen.
 */
let ctx: MailContext | null = null;
let smtp: TestSmtpServer | null = null;
afterEach(async () => {
  await ctx?.close();
  await smtp?.stop();
  ctx = null;
  smtp = null;
});

// Passkeys need a host name; plain http on localhost is the one browsers allow.
const SITE = "http://localhost:5173";

async function setUp(env: Record<string, string> = {}) {
  smtp = await startSmtpServer();
  // The bucket (PostgreSQL + S3 run) is made for this site's origin.
  const backend = await acquireBackend({ SITE_URL: SITE });
  ctx = await createMailContext({ smtpUrl: smtp.url, env: { SITE_URL: SITE, ...env }, backend });
  return { smtp, ctx };
}

/** What arrived: each message's subject and envelope recipients. */
async function delivered(context: MailContext, server: TestSmtpServer, count: number) {
  await context.outbox.runDue();
  const messages = await server.waitForMessages(count);
  return messages.map((message) => `${message.envelope.to.join(",")}: ${message.subject}`);
}

describe("e-mails about the sign-in", () => {
  it("a passkey added and removed, two-step on and off, new recovery codes and a new password each e-mail the owner", async () => {
    const { smtp, ctx } = await setUp();
    const proof = { currentPassword: ADMIN.password };
    const authenticator = createSoftwareAuthenticator({ origin: SITE, rpId: "localhost" });
    const begun = await ctx.admin.post("/api/admin/passkeys/options").send(proof).expect(200);
    const added = await ctx.admin
      .post("/api/admin/passkeys")
      .send({ response: authenticator.register(begun.body.options), name: "Mark's iPhone" })
      .expect(201);
    await ctx.admin
      .delete(`/api/admin/passkeys/${encodeURIComponent(added.body.id as string)}`)
      .send(proof)
      .expect(204);

    const setup = await ctx.admin.post("/api/admin/two-step/setup").send(proof).expect(200);
    const code = new TOTP({ secret: Secret.fromBase32(setup.body.secret as string) }).generate({
      timestamp: ctx.clock.now().getTime(),
    });
    await ctx.admin.post("/api/admin/two-step/enable").send({ code }).expect(200);
    await ctx.admin.post("/api/admin/two-step/recovery-codes").send(proof).expect(200);
    await ctx.admin.post("/api/admin/two-step/disable").send(proof).expect(200);
    const newPassword = "another long password";
    await ctx.admin
      .post("/api/admin/password")
      .send({ currentPassword: ADMIN.password, newPassword, confirmPassword: newPassword })
      .expect(200);

    expect((await delivered(ctx, smtp, 6)).sort()).toEqual(
      [
        "owner@example.nz: A passkey was added to the website admin",
        "owner@example.nz: A passkey was removed from the website admin",
        "owner@example.nz: Two-step verification was turned on for the website admin",
        "owner@example.nz: New recovery codes were made for the website admin",
        "owner@example.nz: Two-step verification was turned off for the website admin",
        "owner@example.nz: The website admin password was changed",
      ].sort(),
    );
  });
});

describe("changing the contact e-mail address", () => {
  it("e-mails the new address and the previous one, whether saved, restored from an earlier version or reset", async () => {
    // Without NOTIFY_EMAIL the owner's e-mails go to the contact address, so moving it moves them.
    const { smtp, ctx } = await setUp({ NOTIFY_EMAIL: "" });
    await ctx.admin.put("/api/admin/content/contact.email").send({ content: "first@example.nz" }).expect(200);
    await ctx.outbox.runDue();
    smtp.messages.splice(0);

    await ctx.admin.put("/api/admin/content/contact.email").send({ content: "thief@example.com" }).expect(200);
    const mails = await delivered(ctx, smtp, 2);
    expect(mails.sort()).toEqual([
      "first@example.nz: The website's contact e-mail address was changed",
      "thief@example.com: The website's contact e-mail address was changed",
    ]);
    expect(smtp.messages[0]!.text).toContain("was changed from first@example.nz to thief@example.com");

    // Back to the earlier version: the address that was just in place hears of it too.
    smtp.messages.splice(0);
    const history = await ctx.admin.get("/api/admin/content/contact.email/history").expect(200);
    const earlier = (history.body as { id: string; content: string }[]).find(
      (version) => version.content === "first@example.nz",
    )!;
    await ctx.admin.post(`/api/admin/content/contact.email/history/${earlier.id}/restore`).expect(200);
    expect((await delivered(ctx, smtp, 2)).sort()).toEqual([
      "first@example.nz: The website's contact e-mail address was changed",
      "thief@example.com: The website's contact e-mail address was changed",
    ]);

    // Reset to the business's own address: the same.
    smtp.messages.splice(0);
    await ctx.admin.delete("/api/admin/content/contact.email").expect(204);
    expect((await delivered(ctx, smtp, 2)).sort()).toEqual(
      [
        `${identity.email}: The website's contact e-mail address was changed`,
        "first@example.nz: The website's contact e-mail address was changed",
      ].sort(),
    );

    // Saving another text, or the same address again, sends nothing.
    smtp.messages.splice(0);
    await ctx.admin.put("/api/admin/content/contact.email").send({ content: identity.email }).expect(200);
    await ctx.admin.put("/api/admin/content/hero.title").send({ content: "Stone that lasts" }).expect(200);
    await ctx.outbox.runDue();
    expect(smtp.messages).toEqual([]);
  });

  it("with NOTIFY_EMAIL set, the owner's address and the previous contact address both hear of it", async () => {
    const { smtp, ctx } = await setUp();
    await ctx.admin.put("/api/admin/content/contact.email").send({ content: "first@example.nz" }).expect(200);
    await ctx.outbox.runDue();
    smtp.messages.splice(0);
    await ctx.admin.put("/api/admin/content/contact.email").send({ content: "second@example.nz" }).expect(200);
    expect((await delivered(ctx, smtp, 2)).sort()).toEqual([
      "first@example.nz: The website's contact e-mail address was changed",
      "owner@example.nz: The website's contact e-mail address was changed",
    ]);
  });
});
