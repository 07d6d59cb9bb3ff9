/** Test support: files as the upload picker sees them (not a test file itself). */

/** The first bytes of each kind of file, which the picker reads to judge it. */
export const MAGIC = {
  jpeg: [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46],
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d],
  webp: [0x52, 0x49, 0x46, 0x46, 0x24, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x20],
  gif: [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0],
  avif: [0, 0, 0, 0x1c, ...ascii("ftypavif"), 0, 0, 0, 0, ...ascii("avifmif1miaf")],
  // An iPhone photo: ISO-BMFF with the HEIC brand.
  heic: [0, 0, 0, 0x18, ...ascii("ftypheic"), 0, 0, 0, 0, ...ascii("mif1heic")],
  text: ascii("hello, not a picture"),
} as const;

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

/** A file with the given first bytes; `size` pretends it is larger without allocating. */
export function testFile(name: string, type: string, magic: readonly number[] = MAGIC.jpeg, size?: number): File {
  const file = new File([new Uint8Array(magic)], name, { type });
  if (size !== undefined) Object.defineProperty(file, "size", { value: size });
  return file;
}
