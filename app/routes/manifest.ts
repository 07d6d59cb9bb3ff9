import { identity } from "~/identity";

/** /manifest.webmanifest: lets a phone add the site to its home screen with the right name and icons. */
export function loader() {
  const manifest = {
    name: identity.businessName,
    short_name: identity.businessName.split(" ")[0],
    description: `${identity.trade[0]!.toUpperCase()}${identity.trade.slice(1)} in ${identity.city}, ${identity.region}`,
    lang: "en-NZ",
    start_url: "/",
    scope: "/",
    display: "browser",
    background_color: "#fafaf9",
    theme_color: "#1c1917",
    icons: [
      { src: "/icon-192.png", sizes: "192x192", type: "image/png" },
      { src: "/icon-512.png", sizes: "512x512", type: "image/png" },
      { src: "/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      { src: "/icon.svg", sizes: "any", type: "image/svg+xml" },
    ],
  };
  return new Response(JSON.stringify(manifest, null, 2), {
    headers: { "Content-Type": "application/manifest+json; charset=utf-8", "Cache-Control": "public, max-age=86400" },
  });
}
