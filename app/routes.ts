import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("stonework", "routes/stonework.tsx"),
  route("landscaping", "routes/landscaping.tsx"),
  route("contact", "routes/contact.tsx"),
  route("admin", "routes/admin.tsx"),
  route("sitemap.xml", "routes/sitemap.ts"),
  route("robots.txt", "routes/robots.ts"),
  route("manifest.webmanifest", "routes/manifest.ts"),
  // Any other path: the 404 page inside the shared layout, with status 404.
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
