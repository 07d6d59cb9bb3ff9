import { describe, expect, it, vi } from "vitest";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { UPLOAD_LIMITS_TEXT, addToSelection, formatKilobytes } from "./file-selection";

const file = (name: string, type: string, size = 10) => {
  const f = new File(["x"], name, { type });
  Object.defineProperty(f, "size", { value: size });
  return f;
};

describe("addToSelection", () => {
  it("keeps images and alerts about anything else or anything too large", () => {
    const alert = vi.fn();
    const ok = file("wall.jpg", "image/jpeg");
    const { files, truncated } = addToSelection(
      [],
      [ok, file("notes.txt", "text/plain"), file("huge.png", "image/png", MAX_UPLOAD_BYTES + 1), file("edge.png", "image/png", MAX_UPLOAD_BYTES)],
      alert,
    );
    expect(files.map((f) => f.name)).toEqual(["wall.jpg", "edge.png"]);
    expect(truncated).toBe(false);
    expect(alert.mock.calls).toEqual([["File notes.txt is not an image"], ["File huge.png is too large. Maximum size is 20MB"]]);
  });

  it("cuts the selection, kept files first, to ten", () => {
    const kept = Array.from({ length: 4 }, (_, i) => file(`kept-${i}.jpg`, "image/jpeg"));
    const incoming = Array.from({ length: 8 }, (_, i) => file(`new-${i}.jpg`, "image/jpeg"));
    const { files, truncated } = addToSelection(kept, incoming, vi.fn());
    expect(files).toHaveLength(10);
    expect(files.slice(0, 4)).toEqual(kept);
    expect(files.at(-1)?.name).toBe("new-5.jpg");
    expect(truncated).toBe(true);
  });

  it("states the limits from the constants", () => {
    expect(UPLOAD_LIMITS_TEXT).toBe("Maximum 10 files, up to 20 MB each");
    expect(formatKilobytes(2048)).toBe("2.0 KB");
    expect(formatKilobytes(1500)).toBe("1.5 KB");
  });
});
