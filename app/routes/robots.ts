import { getPublicEnv } from "~/env.server";
import type { Route } from "./+types/robots";

/** /robots.txt: everything public may be crawled; the admin and the API may not. */
export function loader({ context }: Route.LoaderArgs) {
  const { SITE_URL } = getPublicEnv(context.services.env);
  const text = [
    "User-agent: *",
    "Allow: /",
    "Disallow: /admin",
    "Disallow: /api",
    "",
    `Sitemap: ${SITE_URL}/sitemap.xml`,
    "",
  ].join("\n");
  return new Response(text, {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
