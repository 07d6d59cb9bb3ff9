import { describe, expect, it } from "vitest";
import { createAddressKeyer, normaliseClientAddress } from "./client-address.server";

describe("normaliseClientAddress", () => {
  it("keeps IPv4 as it is", () => {
    expect(normaliseClientAddress("203.0.113.9")).toBe("203.0.113.9");
  });

  it("turns IPv4-mapped IPv6 back into plain IPv4, in either notation", () => {
    expect(normaliseClientAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(normaliseClientAddress("::FFFF:127.0.0.1")).toBe("127.0.0.1");
    expect(normaliseClientAddress("::ffff:cb00:7109")).toBe("203.0.113.9");
    expect(normaliseClientAddress("0:0:0:0:0:ffff:cb00:7109")).toBe("203.0.113.9");
  });

  it("counts an IPv6 client by its /56 prefix: every /64 of one home's /56 is one client", () => {
    const a = normaliseClientAddress("2001:db8:85a3:4200:1111:2222:3333:4444");
    // Another /64 of the same /56, written out in full.
    const b = normaliseClientAddress("2001:0db8:85a3:42ff:ffff:0:0:1");
    const nextSlash56 = normaliseClientAddress("2001:db8:85a3:4300::1");
    expect(a).toBe("2001:db8:85a3:4200::/56");
    expect(b).toBe(a);
    expect(nextSlash56).not.toBe(a);
    expect(normaliseClientAddress("::1")).toBe("0:0:0:0::/56");
    expect(normaliseClientAddress("fe80::1%eth0")).toBe("fe80:0:0:0::/56");
    expect(normaliseClientAddress("2001:db8::5:1.2.3.4")).toBe("2001:db8:0:0::/56");
  });

  it("leaves anything else as a bounded string", () => {
    expect(normaliseClientAddress(undefined)).toBe("unknown");
    expect(normaliseClientAddress("x".repeat(500))).toHaveLength(64);
  });
});

describe("createAddressKeyer", () => {
  it("keys an address by a keyed hash of its normalised form", () => {
    const keyOf = createAddressKeyer(Buffer.alloc(32, 1));
    expect(keyOf("::ffff:203.0.113.9")).toBe(keyOf("203.0.113.9"));
    expect(keyOf("2001:db8:1:2::a")).toBe(keyOf("2001:db8:1:2::b"));
    expect(keyOf("2001:db8:1:2::a")).toBe(keyOf("2001:db8:1:ff::b"));
    expect(keyOf("2001:db8:1:2::a")).not.toBe(keyOf("2001:db8:1:100::a"));
    expect(keyOf("203.0.113.9")).not.toBe(keyOf("203.0.113.10"));
    expect(keyOf("203.0.113.9")).toMatch(/^[0-9a-f]{32}$/);
    expect(keyOf("203.0.113.9")).not.toContain("203");
    expect(createAddressKeyer(Buffer.alloc(32, 2))("203.0.113.9")).not.toBe(keyOf("203.0.113.9"));
  });
});
