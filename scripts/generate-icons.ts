// npx tsx scripts/generate-icons.ts — draws the site's icons into public/ from one SVG.
// The outputs are committed; rerun after changing the mark.
import fs from "node:fs/promises";
import sharp from "sharp";

// A cornerstone: coursed stones in the brand's warm tones on the header's charcoal.
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
  <rect width="64" height="64" rx="12" fill="#1c1917"/>
  <g stroke="#1c1917" stroke-width="2">
    <rect x="10" y="36" width="26" height="16" rx="2" fill="#d6a46c"/>
    <rect x="36" y="36" width="18" height="16" rx="2" fill="#a85a12"/>
    <rect x="10" y="22" width="16" height="14" rx="2" fill="#a85a12"/>
    <rect x="26" y="22" width="16" height="14" rx="2" fill="#e7cfa9"/>
    <rect x="10" y="10" width="20" height="12" rx="2" fill="#d6a46c"/>
  </g>
</svg>
`;

/** An .ico holding one PNG (supported by every current browser). */
function icoFromPng(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18); // data offset
  return Buffer.concat([header, png]);
}

const svg = Buffer.from(ICON_SVG);
const png = (size: number, padding = 0) =>
  sharp(svg, { density: 72 * (size / 64) * 2 })
    .resize(size - padding * 2, size - padding * 2)
    .extend({ top: padding, bottom: padding, left: padding, right: padding, background: "#1c1917" })
    .png({ compressionLevel: 9 })
    .toBuffer();

await fs.mkdir("public", { recursive: true });
await fs.writeFile("public/icon.svg", ICON_SVG);
await fs.writeFile("public/favicon.ico", icoFromPng(await png(32), 32));
await fs.writeFile("public/apple-touch-icon.png", await png(180));
await fs.writeFile("public/icon-192.png", await png(192));
await fs.writeFile("public/icon-512.png", await png(512));
// Maskable: the mark inside the central safe zone (80%).
await fs.writeFile("public/icon-maskable-512.png", await png(512, 52));
console.log("icons written to public/");
