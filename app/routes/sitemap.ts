import { getPublicEnv } from "~/env.server";
import { PUBLIC_PAGE_PATHS } from "~/public-pages";
import type { Route } from "./+types/sitemap";

/** /sitemap.xml: the public pages only. */
export function loader({ context }: Route.LoaderArgs) {
  const { SITE_URL } = getPublicEnv(context.services.env);
  const urls = PUBLIC_PAGE_PATHS.map(
    (path) => `  <url><loc>${SITE_URL}${path}</loc><changefreq>monthly</changefreq></url>`,
  ).join("\n");
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${urls}
</urlset>
`;
  return new Response(xml, {
    headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
