import { describe, expect, it } from "vitest";
import { BACKUP_TABLES } from "~/backups/backup-tables.server";
import { galleryImageKeys } from "./gallery-image-keys";

const variant = (file: string, width: number) => ({ width, height: width, path: `/media/${file}`, bytes: 100 });
const row = {
  original_key: "originals/abc",
  variants: JSON.stringify({
    avif: [variant("aaaaaaaaaaaaaaaaaaaa.avif", 480), variant("bbbbbbbbbbbbbbbbbbbb.avif", 800)],
    webp: [variant("cccccccccccccccccccc.webp", 480)],
    // The JPEG fallback may be the same file as another entry: named once.
    jpeg: variant("cccccccccccccccccccc.webp", 480),
  }),
};

describe("which storage keys a gallery row names", () => {
  it("names its variants and its original, each once", () => {
    expect(galleryImageKeys(row).sort()).toEqual([
      "originals/abc",
      "variants/aaaaaaaaaaaaaaaaaaaa.avif",
      "variants/bbbbbbbbbbbbbbbbbbbb.avif",
      "variants/cccccccccccccccccccc.webp",
    ]);
    expect(galleryImageKeys({ ...row, original_key: null })).not.toContain("originals/abc");
  });

  it("is what a backup copies for the row: the backup reads the same columns the same way", () => {
    const table = BACKUP_TABLES.find((candidate) => candidate.name === "gallery_images");
    const fromBackup = (table?.objectColumns ?? []).flatMap((column) =>
      column.keysOf(row[column.column as keyof typeof row]),
    );
    expect([...new Set(fromBackup)].sort()).toEqual(galleryImageKeys(row).sort());
  });

  it("refuses a value that is not what the column holds", () => {
    expect(() =>
      galleryImageKeys({ ...row, variants: JSON.stringify({ avif: [{ path: 7 }], webp: [], jpeg: { path: "x" } }) }),
    ).toThrow(/not a list of image files/);
  });
});
