import { describe, expect, it } from "vitest";
import { formatFileSize } from "./plain-words";

describe("formatFileSize", () => {
  it.each([
    [2_503_680, "2.4 MB"],
    [12_900_000, "12 MB"],
    [1024 * 1024, "1.0 MB"],
    [110_000, "0.1 MB"],
    [20_000, "less than 0.1 MB"],
    [0, "less than 0.1 MB"],
    [1.2 * 1024 ** 3, "1.2 GB"],
  ])("%d bytes → %s", (bytes, expected) => {
    expect(formatFileSize(bytes)).toBe(expected);
  });

  it("never says KB", () => {
    for (let bytes = 1; bytes < 5 * 1024 ** 2; bytes = Math.ceil(bytes * 1.7))
      expect(formatFileSize(bytes)).not.toMatch(/KB|\bB\b/);
  });
});
