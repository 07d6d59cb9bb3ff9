import type { IncomingMessage } from "node:http";
import express from "express";
import proxyAddress from "proxy-addr";
import { describe, expect, it } from "vitest";
import { clientAddress, rememberedTrust } from "./page-view-counter";

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  const socket = { remoteAddress };
  return {
    headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
    socket,
    connection: socket,
  } as unknown as IncomingMessage;
}

describe("rememberedTrust", () => {
  it.each(["loopback", "false", "1", "2", "10.0.0.0/8, loopback", "uniquelocal"])(
    "resolves the client address exactly as Express does with TRUST_PROXY=%s",
    (setting) => {
      const app = express();
      app.set("trust proxy", /^\d+$/.test(setting) ? Number(setting) : setting === "false" ? false : setting);
      const trust = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
      const remembered = rememberedTrust(trust);
      const cases = [
        request("127.0.0.1"),
        request("127.0.0.1", "203.0.113.9"),
        request("127.0.0.1", "198.51.100.1, 203.0.113.9"),
        request("10.1.2.3", "198.51.100.1, 10.0.0.7"),
        request("203.0.113.50", "198.51.100.1"),
        request("::1", "2001:db8::1"),
        request("::ffff:127.0.0.1", "203.0.113.9"),
        request("fd00::1", " 198.51.100.2 ,203.0.113.3"),
        request("127.0.0.1", "  198.51.100.1 , , 10.0.0.7 ,127.0.0.1  "),
        request("127.0.0.1", ","),
        request("127.0.0.1", "a b, 127.0.0.1"),
        request("127.0.0.1", "::1,::1, ::1"),
      ];
      for (let round = 0; round < 2; round++) {
        for (const req of cases) {
          expect(proxyAddress(req, remembered)).toBe(proxyAddress(req, trust));
          expect(clientAddress(req, remembered), JSON.stringify(req.headers)).toBe(proxyAddress(req, trust));
        }
      }
    },
  );

  it("stays right past its memory's cap (it is cleared, never grown)", () => {
    const app = express();
    app.set("trust proxy", "loopback");
    const trust = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
    const remembered = rememberedTrust(trust);
    for (let i = 0; i < 2500; i++) {
      const req = request(`10.0.${i >> 8}.${i & 255}`, "203.0.113.9");
      expect(proxyAddress(req, remembered)).toBe(proxyAddress(req, trust));
    }
    expect(proxyAddress(request("127.0.0.1", "203.0.113.9"), remembered)).toBe("203.0.113.9");
  });
});
