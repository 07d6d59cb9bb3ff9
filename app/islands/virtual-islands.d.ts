declare module "virtual:cornerstone/islands" {
  import type { IslandName } from "~/islands/islands";
  /** Each island's built entry and the chunks it imports, by name (app/islands/vite-plugin.ts). */
  const assets: Partial<Record<IslandName, { file: string; imports: string[] }>>;
  export default assets;
}
