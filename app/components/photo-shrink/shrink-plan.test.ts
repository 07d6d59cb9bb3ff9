import { describe, expect, it } from "vitest";
import { VIEW_LONG_SIDE } from "~/enquiry-photos/enquiry-photos";
import { shrinkPlan } from "./shrink-plan";

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
