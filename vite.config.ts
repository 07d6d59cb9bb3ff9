import { fileURLToPath } from "node:url";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig(({ isSsrBuild }) => ({
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  build: {
    // The server bundle's entry is our Express server, which imports the
    // React Router build through its virtual module (one module graph).
    rollupOptions: isSsrBuild ? { input: "./server/index.ts" } : undefined,
    target: "es2022",
  },
  plugins: [tailwindcss(), reactRouter()],
}));
