import { describe, expect, it } from "vitest";
import { VIEW_LONG_SIDE } from "~/enquiry-photos/enquiry-photos";
import { shrinkPlan } from "./shrink-plan";

describe("the encodings the browser tries", () => {
  it("a 4032 × 3024 photo: 1600 × 1200 at three qualities, then smaller", () => {
    expect(shrinkPlan(4032, 3024)).toEqual([
      { width: 1600, height: 1200, quality: 0.8 },
      { width: 1600, height: 1200, quality: 0.7 },
      { width: 1600, height: 1200, quality: 0.6 },
      { width: 1280, height: 960, quality: 0.7 },
      { width: 1024, height: 768, quality: 0.7 },
      { width: 800, height: 600, quality: 0.7 },
    ]);
  });

  it("upright portraits keep their shape; the long side is the site's viewing copy's", () => {
    const [first] = shrinkPlan(3024, 4032);
    expect(first).toEqual({ width: 1200, height: VIEW_LONG_SIDE, quality: 0.8 });
  });

  it("never enlarges a small photo, and tries only sizes below it", () => {
    expect(shrinkPlan(1100, 700)).toEqual([
      { width: 1100, height: 700, quality: 0.8 },
      { width: 1100, height: 700, quality: 0.7 },
      { width: 1100, height: 700, quality: 0.6 },
      { width: 1024, height: 652, quality: 0.7 },
      { width: 800, height: 509, quality: 0.7 },
    ]);
  });
});
