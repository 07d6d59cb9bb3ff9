import { describe, expect, it } from "vitest";
import { makeImage, type TestImageFormat } from "../../tests/fixtures/images";
import { sniffImageType } from "./sniff-image-type";

/** An ISO-BMFF ftyp box: size, "ftyp", major brand, minor version, compatible brands. */
function ftyp(major: string, compatible: string[]): Buffer {
  const size = 16 + compatible.length * 4;
  const box = Buffer.alloc(size);
  box.writeUInt32BE(size, 0);
  box.write("ftyp", 4, "latin1");
  box.write(major, 8, "latin1");
  compatible.forEach((brand, i) => box.write(brand, 16 + i * 4, "latin1"));
  return box;
}

describe("sniffImageType", () => {
  it.each<[TestImageFormat, string]>([
    ["jpeg", "image/jpeg"],
    ["png", "image/png"],
    ["webp", "image/webp"],
    ["avif", "image/avif"],
    ["gif", "image/gif"],
  ])("recognises a %s made by sharp from its first 32 bytes", async (format, mediaType) => {
    const image = await makeImage(format);
    expect(sniffImageType(image.subarray(0, 32))).toBe(mediaType);
    expect(sniffImageType(image)).toBe(mediaType);
  });

  it("recognises a PNG by its signature whatever follows it", async () => {
    const png = await makeImage("png", { alpha: true });
    expect(sniffImageType(png)).toBe("image/png");
    const tricky = Buffer.concat([png.subarray(0, 8), Buffer.from("GIF89a....ftypavifRIFF....WEBP")]);
    expect(sniffImageType(tricky)).toBe("image/png");
  });

  it("returns null for text and other non-images", () => {
    expect(sniffImageType(Buffer.from("Hello, this is a plain text file, not an image."))).toBeNull();
    expect(sniffImageType(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'></svg>"))).toBeNull();
    expect(sniffImageType(Buffer.from("%PDF-1.7\n"))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
    expect(sniffImageType(Buffer.from([0xff, 0xd8]))).toBeNull();
    expect(sniffImageType(Buffer.from("RIFF\0\0\0\0WAVEfmt "))).toBeNull();
  });

  it("reads AVIF brands from the ftyp box", () => {
    expect(sniffImageType(ftyp("avif", ["mif1", "miaf"]))).toBe("image/avif");
    expect(sniffImageType(ftyp("avis", ["msf1"]))).toBe("image/avif");
    expect(sniffImageType(ftyp("mif1", ["miaf", "avif"]))).toBe("image/avif");
    expect(sniffImageType(ftyp("msf1", ["avis"]))).toBe("image/avif");
    // HEIC and other ISO-BMFF files (video) are not AVIF.
    expect(sniffImageType(ftyp("heic", ["mif1", "heic"]))).toBeNull();
    expect(sniffImageType(ftyp("mif1", ["heic", "miaf"]))).toBeNull();
    expect(sniffImageType(ftyp("isom", ["avif"]))).toBeNull();
  });

  it("ignores brands outside the ftyp box or past the given bytes", () => {
    const box = ftyp("mif1", ["miaf"]);
    const withFollowingBox = Buffer.concat([box, Buffer.from("avif")]);
    expect(sniffImageType(withFollowingBox)).toBeNull();
    expect(sniffImageType(ftyp("mif1", ["heic", "avif"]).subarray(0, 20))).toBeNull();
  });
});
