import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseMailAddress, parseSmtpUrl } from "./smtp-settings";

describe("parseSmtpUrl", () => {
  it("reads smtp:// (STARTTLS required) and smtps:// (TLS), with default ports and decoded credentials", () => {
    expect(parseSmtpUrl("smtp://me%40example.nz:p%3Ass@mail.example.nz:587")).toEqual({
      secure: false,
      host: "mail.example.nz",
      port: 587,
      user: "me@example.nz",
      pass: "p:ss",
      requireTls: true,
    });
    expect(parseSmtpUrl("smtps://u:p@mail.example.nz")).toMatchObject({ secure: true, port: 465, requireTls: false });
    expect(parseSmtpUrl("smtp://mail.example.nz")).toMatchObject({
      port: 587,
      user: null,
      pass: null,
      requireTls: true,
    });
  });

  it("lets a loopback relay talk plain text, and nothing else", () => {
    for (const url of ["smtp://127.0.0.1:25", "smtp://localhost:25", "smtp://[::1]:25", "smtp://127.0.0.2"]) {
      expect(parseSmtpUrl(url).requireTls, url).toBe(false);
    }
    for (const url of ["smtp://10.0.0.5:25", "smtp://localhost.example.nz:25", "smtp://[::2]:25", "smtp://192.0.2.2"]) {
      expect(parseSmtpUrl(url).requireTls, url).toBe(true);
    }
    expect(isLoopbackHost("[::1]")).toBe(true);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
  });

  it.each([
    ["not a url", /not a URL/],
    ["http://mail.example.nz", /must start with smtp:\/\/ or smtps:\/\//],
    ["smtp://mail.example.nz:587?ignoreTLS=true", /no path or \?options/],
    ["smtp://mail.example.nz:587/inbox", /no path or \?options/],
    ["smtp://u:%E0%A4%A@mail.example.nz", /badly percent-encoded/],
  ])("refuses %s", (value, message) => {
    expect(() => parseSmtpUrl(value)).toThrow(message);
  });
});

describe("parseMailAddress", () => {
  it("reads a bare address or a named one", () => {
    expect(parseMailAddress("site@example.nz")).toEqual({ name: null, address: "site@example.nz" });
    expect(parseMailAddress("Cornerstone Website <site@example.nz>")).toEqual({
      name: "Cornerstone Website",
      address: "site@example.nz",
    });
    expect(parseMailAddress('"Stone, Ltd" <site@example.nz>')).toEqual({
      name: "Stone, Ltd",
      address: "site@example.nz",
    });
  });

  it.each(["nobody", "Site <nobody>", "a@b.nz\r\nBcc: x@y.nz", "<a@b.nz> trailing"])("refuses %j", (value) => {
    expect(() => parseMailAddress(value)).toThrow();
  });
});
