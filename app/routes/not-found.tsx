import { data, Link } from "react-router";
import { buttonClasses } from "~/components/ui/button";
import type { PublicPageHandle } from "~/islands/islands";

// Any path outside the route table: the 404 page, with HTTP status 404.
export function loader() {
  return data(null, { status: 404 });
}

export const handle: PublicPageHandle = { islands: [] };

export function meta() {
  return [{ title: "404 Page Not Found" }, { name: "robots", content: "noindex" }];
}

export default function NotFound() {
  return (
    <div className="mx-auto max-w-3xl px-4 py-24 text-center">
      <p className="text-sm font-semibold tracking-wide text-brand-700 uppercase">Error 404</p>
      <h1 className="mt-2 font-display text-4xl font-bold">404 Page Not Found</h1>
      <p className="mt-4 text-lg text-stone-700">
        Sorry, that page doesn't exist. It may have moved, or the address may be mistyped.
      </p>
      <Link to="/" className={buttonClasses("primary", "lg", "mt-8")}>
        Back to the home page
      </Link>
    </div>
  );
}
