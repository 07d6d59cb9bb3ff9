import { useEffect, type ReactNode } from "react";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useMatches,
  type ShouldRevalidateFunctionArgs,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
// Inlined, not linked: a stylesheet request would block first paint on a slow
// phone connection while the scripts compete for it (docs/decisions/0011).
// Public pages get a stylesheet without the admin's classes (app/public.css).
import adminStylesheet from "./app.css?inline";
import publicStylesheet from "./public.css?inline";
import { HeadLinks } from "./components/layout/head-links";
import { SiteFooter } from "./components/layout/site-footer";
import { PublicPageScripts } from "./islands/public-page-scripts";
import { SiteHeader } from "./components/layout/site-header";
import { useNonce } from "./components/nonce-provider";
import { Toaster } from "./components/ui/toaster";
import { readContent } from "./content/content.server";
import { LAYOUT_KEYS, defaultContentMap } from "./content/sections";
import { getPublicEnv } from "./env.server";
import { loadGallery } from "./galleries/galleries.server";
import { publicPageIslands } from "./islands/islands";
import { businessJsonLd, jsonForScript, type SiteSeo } from "./content/seo";

export async function loader({ context }: Route.LoaderArgs) {
  const { services, markDegraded: onFallback } = context;
  const [layout, hero] = await Promise.all([
    readContent(services, LAYOUT_KEYS, { onFallback }),
    loadGallery(services, "homepage", { limit: 1, onFallback }),
  ]);
  const first = hero.status === "ok" ? hero.images[0] : undefined;
  const seo: SiteSeo = {
    siteUrl: getPublicEnv(services.env).SITE_URL,
    contact: {
      "contact.name": layout["contact.name"],
      "contact.phone": layout["contact.phone"],
      "contact.email": layout["contact.email"],
      "contact.address": layout["contact.address"],
      "contact.areas": layout["contact.areas"],
    },
    shareImage: first
      ? {
          imagePath: first.imagePath,
          width: first.variants.jpeg.width,
          height: first.variants.jpeg.height,
          caption: first.caption,
        }
      : null,
  };
  return { layout, seo };
}

/** Back between the admin's views (?view=…) asks the server nothing: offline, that load showed the error page. */
export function shouldRevalidate({ currentUrl, nextUrl, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return currentUrl.pathname === "/admin" && nextUrl.pathname === "/admin" ? false : defaultShouldRevalidate;
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // Public pages are HTML and CSS with a few islands; only the admin loads React Router's runtime
  // (docs/decisions/0055). Chosen per route by its `handle`.
  const islands = publicPageIslands(useMatches());
  // Public pages are never rendered in the browser, so its bundle leaves their stylesheet out.
  const stylesheet = islands && import.meta.env.SSR ? publicStylesheet : adminStylesheet;
  return (
    <html lang="en-NZ" data-islands={islands?.join(" ")}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#1c1917" />
        <Meta />
        <style dangerouslySetInnerHTML={{ __html: stylesheet }} />
        <Links />
        <HeadLinks afterLargestPaint={islands !== null} />
        {islands ? <PublicPageScripts islands={islands} nonce={nonce} /> : null}
      </head>
      <body className="flex min-h-screen flex-col">
        {children}
        {islands ? null : (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        )}
      </body>
    </html>
  );
}

function Shell({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const nonce = useNonce();
  // On public pages the contact island carries the notification area (the only toasts there).
  const fullApp = publicPageIslands(useMatches()) === null;
  useEffect(() => {
    // Marks the moment clicks reach React's handlers (browser tests wait for it).
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <>
      <a
        href="#main-content"
        className="sr-only z-50 rounded-md bg-white px-4 py-2 font-semibold text-stone-900 focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Skip to main content
      </a>
      <SiteHeader menuIsland={!fullApp} />
      <main id="main-content" tabIndex={-1} className="flex-1 focus:outline-none">
        {children}
      </main>
      <SiteFooter content={data?.layout ?? defaultContentMap(LAYOUT_KEYS)} forTouch={fullApp} />
      {fullApp ? <Toaster /> : null}
      {data?.seo ? (
        <script
          type="application/ld+json"
          nonce={nonce}
          // Built from the current contact details, so search engines always see the same as visitors.
          dangerouslySetInnerHTML={{ __html: jsonForScript(businessJsonLd(data.seo)) }}
        />
      ) : null}
    </>
  );
}

export default function App() {
  return (
    <Shell>
      <Outlet />
    </Shell>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const title = notFound ? "404 Page Not Found" : "Something went wrong";
  return (
    <Shell>
      <title>{title}</title>
      <div className="mx-auto max-w-3xl px-4 py-24 text-center">
        <h1 className="font-display text-3xl font-bold">{title}</h1>
        <p className="mt-4 text-stone-700">
          {notFound
            ? "Sorry, we couldn't find that page."
            : "Sorry, this page could not be shown right now. Please try again in a moment."}
        </p>
        <a href="/" className="mt-8 inline-block font-semibold text-brand-700 underline">
          Back to the home page
        </a>
      </div>
    </Shell>
  );
}
