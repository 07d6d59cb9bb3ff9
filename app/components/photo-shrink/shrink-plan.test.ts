import { describe, expect, it } from "vitest";
import { VIEW_LONG_SIDE } from "~/enquiry-photos/enquiry-photos";
import { variantWidthsFor } from "~/images/image-pipeline.server";
import { galleryShrinkPlan, shrinkPlan } from "./shrink-plan";

/** A photo's size, and every encoding tried for it in order, each as [width, height, quality]. */
const PLANS: [name: string, width: number, height: number, steps: [number, number, number][]][] = [
  [
    "a 4032 × 3024 photo: 1600 × 1200 at three qualities, then smaller",
    4032,
    3024,
    [
      [1600, 1200, 0.8],
      [1600, 1200, 0.7],
      [1600, 1200, 0.6],
      [1280, 960, 0.7],
      [1024, 768, 0.7],
      [800, 600, 0.7],
    ],
  ],
  [
    "never enlarges a small photo, and tries only sizes below it",
    1100,
    700,
    [
      [1100, 700, 0.8],
      [1100, 700, 0.7],
      [1100, 700, 0.6],
      [1024, 652, 0.7],
      [800, 509, 0.7],
    ],
  ],
];

describe("the encodings the browser tries", () => {
  it.each(PLANS)("%s", (_name, width, height, steps) => {
    expect(shrinkPlan(width, height)).toEqual(steps.map(([width, height, quality]) => ({ width, height, quality })));
  });

  it("upright portraits keep their shape; the long side is the site's viewing copy's", () => {
    const [first] = shrinkPlan(3024, 4032);
    expect(first).toEqual({ width: 1200, height: VIEW_LONG_SIDE, quality: 0.8 });
  });
});

describe("a gallery photo's copy: the largest size the site serves", () => {
  it.each([
    ["a 4032 × 3024 camera photo", 4032, 3024, [2400, 1800]],
    ["an upright 3024 × 4032 one", 3024, 4032, [2400, 3200]],
    ["a 12,000 × 3,000 panorama", 12_000, 3000, [2400, 600]],
    ["a 3,000 × 12,000 strip, to the variants' 9,600 px height", 3000, 12_000, [2400, 9600]],
    ["a 4,000 × 20,000 strip, narrower still", 4000, 20_000, [1920, 9600]],
    ["a 500 × 10,000 strip, as narrow as its one variant", 500, 10_000, [480, 9600]],
  ] as const)("%s: %i × %i → one JPEG at quality 0.9", (_name, width, height, [copyWidth, copyHeight]) => {
    expect(galleryShrinkPlan(width, height)).toEqual([{ width: copyWidth, height: copyHeight, quality: 0.9 }]);
  });

  it.each([
    [2400, 1800],
    [1800, 1200],
    [400, 8000],
  ])("a %i × %i photo is no larger than its widest variant: sent as it is", (width, height) => {
    expect(galleryShrinkPlan(width, height)).toEqual([]);
  });

  it("the site makes the same variants from the copy as from the photo", () => {
    for (const [width, height] of [
      [4032, 3024],
      [3024, 4032],
      [4001, 16_003],
      [3000, 12_001],
      [9000, 1200],
      [2401, 1800],
    ] as const) {
      const [copy] = galleryShrinkPlan(width, height);
      expect(variantWidthsFor(copy!.width, copy!.height), `${width} × ${height}`).toEqual(
        variantWidthsFor(width, height),
      );
    }
  });
});
