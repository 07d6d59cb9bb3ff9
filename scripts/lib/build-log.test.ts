import { describe, expect, it } from "vitest";
import { buildWarnings } from "./build-log.mjs";

// Lines as `npm run build` printed them before it was quieted (abridged), colours included.
const CLEAN = `
> cornerstone@1.0.0 build
> react-router build && node scripts/precompress-assets.mjs

vite v7.3.8 building client environment for production...
transforming...
\u001b[32m✓\u001b[39m 3265 modules transformed.
rendering chunks...
computing gzip size...
\u001b[2mbuild/client/\u001b[22m\u001b[2m.vite/\u001b[22m\u001b[32mmanifest.json                    \u001b[39m\u001b[1m\u001b[2m  8.56 kB\u001b[22m\u001b[1m\u001b[22m\u001b[2m │ gzip:  1.18 kB\u001b[22m
build/client/assets/admin-CiSkKfYn.js             238.06 kB │ gzip: 76.18 kB
\u001b[32m✓ built in 16.93s\u001b[39m
vite v7.3.8 building ssr environment for production...
build/server/index.js                                462.60 kB
✓ built in 744ms
✓ built in 1m 4s
precompressed 17 assets: 782 KB → 216 KB with brotli
`;

describe("buildWarnings", () => {
  it("finds nothing in a clean build's output", () => {
    expect(buildWarnings(CLEAN)).toEqual([]);
  });

  it("finds each kind of notice the build used to print", () => {
    const output = `${CLEAN}
Generated an empty chunk: "manifest".
../../main/node_modules/zod/v4/core/util.js (400:0): A comment
in "../../main/node_modules/zod/v4/core/util.js" contains an annotation that Rollup cannot interpret due to the position of the comment. The comment will be removed to avoid issues.
  \u001b[33m⚠️  Future Flag Warning: Route middleware support is changing in React Router v8.\u001b[39m
     -> https://reactrouter.com/v7/upgrading/future#futurev8_middleware
(!) Some chunks are larger than 500 kB after minification.
`;
    expect(buildWarnings(output)).toEqual([
      'Generated an empty chunk: "manifest".',
      "../../main/node_modules/zod/v4/core/util.js (400:0): A comment",
      'in "../../main/node_modules/zod/v4/core/util.js" contains an annotation that Rollup cannot interpret due to the position of the comment. The comment will be removed to avoid issues.',
      "⚠️  Future Flag Warning: Route middleware support is changing in React Router v8.",
      "-> https://reactrouter.com/v7/upgrading/future#futurev8_middleware",
      "(!) Some chunks are larger than 500 kB after minification.",
    ]);
  });
});
