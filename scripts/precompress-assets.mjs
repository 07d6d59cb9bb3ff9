// Runs after `react-router build`: writes a brotli (quality 11) and a gzip (level 9) copy
// beside every hashed script and stylesheet, so the server sends the smallest bytes without
// compressing on each request (server/precompressed-assets.ts).
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const assetsDir = path.resolve(import.meta.dirname, "../build/client/assets");
const MIN_BYTES = 1024; // smaller files are not worth a Content-Encoding

let files = 0;
let before = 0;
let after = 0;
for (const name of await readdir(assetsDir)) {
  if (!/\.(js|css|svg|json)$/.test(name)) continue;
  const source = await readFile(path.join(assetsDir, name));
  if (source.length < MIN_BYTES) continue;
  const brotli = brotliCompressSync(source, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: source.length },
  });
  await writeFile(path.join(assetsDir, `${name}.br`), brotli);
  await writeFile(path.join(assetsDir, `${name}.gz`), gzipSync(source, { level: 9 }));
  files += 1;
  before += source.length;
  after += brotli.length;
}
console.log(
  `precompressed ${files} assets: ${(before / 1024).toFixed(0)} KB → ${(after / 1024).toFixed(0)} KB with brotli`,
);
