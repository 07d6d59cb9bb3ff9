import { describe, expect, it } from "vitest";
import { createRateLimiter } from "./rate-limiter.server";

describe("createRateLimiter", () => {
  it("allows the limit within the window, then refuses with the wait", () => {
    const limiter = createRateLimiter({ limit: 3, windowMs: 60_000 });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(limiter.check("a", t0 + i).allowed).toBe(true);
      limiter.hit("a", t0 + i);
    }
    expect(limiter.check("a", t0 + 10)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(limiter.check("b", t0 + 10).allowed).toBe(true);
    expect(limiter.check("a", t0 + 60_001).allowed).toBe(true);
  });

  it("forgets a key on reset", () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000 });
    limiter.hit("a");
    expect(limiter.check("a").allowed).toBe(false);
    limiter.reset("a");
    expect(limiter.check("a").allowed).toBe(true);
  });
});
