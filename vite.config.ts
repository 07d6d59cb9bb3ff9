import { fileURLToPath } from "node:url";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";

/**
 * React Router names every entry of the server build `index.js`; the image
 * worker's entry keeps its own name (`image-worker.js`), since the server forks
 * it by that name (decision 0017). Listed after reactRouter() so it wins.
 */
const namedServerEntries: Plugin = {
  name: "cornerstone:named-server-entries",
  apply: "build",
  config: (_config, { isSsrBuild }) =>
    isSsrBuild ? { build: { rollupOptions: { output: { entryFileNames: "[name].js" } } } } : undefined,
};

export default defineConfig(({ isSsrBuild }) => ({
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  build: {
    // The server bundle's entry is our Express server, which imports the
    // React Router build through its virtual module (one module graph). The
    // image worker is a second entry: its own file, forked by the server.
    rollupOptions: isSsrBuild
      ? { input: { index: "./server/index.ts", "image-worker": "./server/image-worker.ts" } }
      : undefined,
    target: "es2022",
  },
  plugins: [tailwindcss(), reactRouter(), namedServerEntries],
}));
