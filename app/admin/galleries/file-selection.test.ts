import { describe, expect, it, vi } from "vitest";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { UPLOAD_LIMITS_TEXT, addToSelection, formatKilobytes } from "./file-selection";
import { MAGIC, testFile } from "../test-files";

const file = testFile;

describe("addToSelection", () => {
  it("keeps images and alerts about anything else or anything too large", async () => {
    const alert = vi.fn();
    const ok = file("wall.jpg", "image/jpeg");
    const { files, truncated } = await addToSelection(
      [],
      [
        ok,
        file("notes.txt", "text/plain", MAGIC.text),
        file("huge.png", "image/png", MAGIC.png, MAX_UPLOAD_BYTES + 1),
        file("edge.png", "image/png", MAGIC.png, MAX_UPLOAD_BYTES),
      ],
      alert,
    );
    expect(files.map((f) => f.name)).toEqual(["wall.jpg", "edge.png"]);
    expect(truncated).toBe(false);
    expect(alert.mock.calls).toEqual([
      ["File notes.txt is not an image"],
      ["File huge.png is too large. Maximum size is 20MB"],
    ]);
  });

  it("judges an image by its first bytes: JPEG, PNG, WebP, AVIF and GIF pass; HEIC and impostors do not", async () => {
    const alert = vi.fn();
    const { files } = await addToSelection(
      [],
      [
        file("a.jpg", "image/jpeg", MAGIC.jpeg),
        file("b.png", "image/png", MAGIC.png),
        file("c.webp", "image/webp", MAGIC.webp),
        file("d.avif", "image/avif", MAGIC.avif),
        file("e.gif", "image/gif", MAGIC.gif),
        file("IMG_0412.HEIC", "image/heic", MAGIC.heic),
        file("renamed.jpg", "image/jpeg", MAGIC.heic),
        file("fake.png", "image/png", MAGIC.text),
      ],
      alert,
    );
    expect(files.map((f) => f.name)).toEqual(["a.jpg", "b.png", "c.webp", "d.avif", "e.gif"]);
    expect(alert.mock.calls).toEqual([
      ["File IMG_0412.HEIC is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF."],
      ["File renamed.jpg is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF."],
      ["File fake.png is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF."],
    ]);
  });

  it("keeps the spec's alert for a file that does not even claim to be an image, HEIC or not", async () => {
    const alert = vi.fn();
    await addToSelection(
      [],
      [file("IMG_0413.HEIC", "", MAGIC.heic), file("clip.mov", "video/quicktime", MAGIC.heic)],
      alert,
    );
    expect(alert.mock.calls).toEqual([["File IMG_0413.HEIC is not an image"], ["File clip.mov is not an image"]]);
  });

  it("cuts the selection, kept files first, to ten", async () => {
    const kept = Array.from({ length: 4 }, (_, i) => file(`kept-${i}.jpg`, "image/jpeg"));
    const incoming = Array.from({ length: 8 }, (_, i) => file(`new-${i}.jpg`, "image/jpeg"));
    const { files, truncated } = await addToSelection(kept, incoming, vi.fn());
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
