import { getPublicEnv } from "~/env.server";
import { NAV_LINKS } from "~/components/layout/nav-links";
import type { Route } from "./+types/sitemap";

/** /sitemap.xml: the public pages only. */
export function loader({ context }: Route.LoaderArgs) {
  const { SITE_URL } = getPublicEnv(context.services.env);
  const urls = NAV_LINKS.map(
    (link) => `  <url><loc>${SITE_URL}${link.to}</loc><changefreq>monthly</changefreq></url>`,
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
