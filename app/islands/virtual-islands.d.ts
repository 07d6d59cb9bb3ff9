declare module "virtual:cornerstone/islands" {
  /** Each island's built entry and the chunks it imports, by name (app/islands/vite-plugin.ts). */
  const assets: Partial<Record<string, { file: string; imports: string[] }>>;
  export default assets;
}
