export type SniffedImageType = "image/jpeg" | "image/png" | "image/webp" | "image/avif" | "image/gif";

/** How many leading bytes sniffImageType needs. */
export const SNIFF_BYTES = 32;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function ascii(head: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...head.subarray(start, start + length));
}

/**
 * An image's type by its magic number alone (32 bytes suffice). The admin checks a file with it before uploading,
 * so a HEIC photo is refused before it costs mobile data.
 */
export function sniffImageType(head: Uint8Array): SniffedImageType | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
    return "image/jpeg";
  }
  if (head.length >= 8 && PNG_SIGNATURE.every((byte, i) => head[i] === byte)) return "image/png";
  if (head.length >= 6 && (ascii(head, 0, 6) === "GIF87a" || ascii(head, 0, 6) === "GIF89a")) {
    return "image/gif";
  }
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 4) === "WEBP") {
    return "image/webp";
  }
  if (isAvif(head)) return "image/avif";
  return null;
}

const AVIF_BRANDS = new Set(["avif", "avis"]);
const GENERIC_HEIF_BRANDS = new Set(["mif1", "msf1"]);

/** ISO-BMFF `ftyp`: major brand avif/avis, or mif1/msf1 listing avif/avis; HEIC is not AVIF. */
function isAvif(head: Uint8Array): boolean {
  if (head.length < 16 || ascii(head, 4, 4) !== "ftyp") return false;
  const boxSize = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) >>> 0;
  if (boxSize < 16) return false;
  const major = ascii(head, 8, 4);
  if (AVIF_BRANDS.has(major)) return true;
  if (!GENERIC_HEIF_BRANDS.has(major)) return false;
  // Only brands inside the ftyp box and inside the bytes we were given.
  const end = Math.min(boxSize, head.length);
  for (let offset = 16; offset + 4 <= end; offset += 4) {
    if (AVIF_BRANDS.has(ascii(head, offset, 4))) return true;
  }
  return false;
}
