import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSmtpServer, type TestSmtpServer } from "../../tests/support/smtp";
import { createSmtpMailer, type OutgoingMail } from "./mailer.server";
import { parseSmtpUrl } from "./smtp-settings";

/**
 * The STARTTLS rule against a real SMTP server: over smtp:// to a
 * non-loopback address the password never travels unencrypted. That needs a
 * non-loopback address on this machine; without one the test fails, loudly.
 */
function firstExternalIPv4(): string {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;
  if (!address) {
    throw new Error(
      "This test needs a non-loopback IPv4 address (os.networkInterfaces() lists none): STARTTLS is only required off loopback.",
    );
  }
  return address;
}

const mail: OutgoingMail = {
  from: { name: "Website", address: "website@example.nz" },
  to: "owner@example.nz",
  subject: "Hello",
  text: "Hello",
  html: "<p>Hello</p>",
  messageId: "<test-1@example.nz>",
};
const AUTH = { user: "website", pass: "s3cret password" };

let dir: string;
let cert: { key: string; cert: string };
let host: string;
beforeAll(() => {
  host = firstExternalIPv4();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-tls-"));
  // A certificate for this address, trusted by the client below through `ca` (nothing is switched off).
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=cornerstone-test",
      "-addext",
      `subjectAltName=IP:${host}`,
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  cert = {
    key: fs.readFileSync(path.join(dir, "key.pem"), "utf8"),
    cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"),
  };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let smtp: TestSmtpServer | null = null;
afterEach(async () => {
  await smtp?.stop();
  smtp = null;
});

describe("createSmtpMailer", () => {
  it("refuses to send over smtp:// to a non-loopback server that does not offer STARTTLS: no password, no message", async () => {
    smtp = await startSmtpServer({ host, auth: AUTH, noStartTls: true, tls: cert });
    const settings = parseSmtpUrl(smtp.url);
    expect(settings.requireTls).toBe(true);
    const mailer = createSmtpMailer(settings, { tls: { ca: cert.cert } });
    await expect(mailer.send(mail)).rejects.toThrow(/STARTTLS/i);
    expect(smtp.authAttempts).toEqual([]);
    expect(smtp.mailFromCount).toBe(0);
    expect(smtp.messages).toEqual([]);
  });

  it("upgrades with STARTTLS before signing in when the server offers it", async () => {
    smtp = await startSmtpServer({ host, auth: AUTH, tls: cert });
    const mailer = createSmtpMailer(parseSmtpUrl(smtp.url), { tls: { ca: cert.cert } });
    expect(mailer.description).toBe(`smtp://${host}:${smtp.port} (STARTTLS required)`);
    await mailer.send(mail);
    expect(smtp.authAttempts).toEqual([{ username: AUTH.user, secure: true }]);
    const [received] = await smtp.waitForMessages(1);
    expect(received!.secure).toBe(true);
    expect(received!.user).toBe(AUTH.user);
  });

  it("fails with the certificate error rather than trust an unknown certificate", async () => {
    smtp = await startSmtpServer({ host, auth: AUTH, tls: cert });
    const mailer = createSmtpMailer(parseSmtpUrl(smtp.url));
    await expect(mailer.send(mail)).rejects.toThrow(/self[- ]signed|certificate/i);
    expect(smtp.authAttempts).toEqual([]);
  });

  it("talks plain text to a relay on a loopback address", async () => {
    smtp = await startSmtpServer({ host: "127.0.0.1", auth: AUTH, noStartTls: true });
    const settings = parseSmtpUrl(smtp.url);
    expect(settings.requireTls).toBe(false);
    await createSmtpMailer(settings).send(mail);
    const [received] = await smtp.waitForMessages(1);
    expect(received!.secure).toBe(false);
    expect(received!.envelope).toEqual({ from: "website@example.nz", to: ["owner@example.nz"] });
  });
});
