import { Menu, X } from "lucide-react";
import { useEffect, useRef } from "react";
import { Link, NavLink } from "react-router";
import { identity } from "~/identity";
import { cn } from "~/lib/cn";
import { PUBLIC_PAGES } from "~/public-pages";
import { MENU_ATTRIBUTE, MENU_BUTTON_ATTRIBUTE, MOBILE_MENU_ID, enhanceMenu } from "./menu-behaviour";

function navLinkClasses({ isActive }: { isActive: boolean }, mobile = false) {
  return cn(
    "rounded-md font-medium transition-colors",
    mobile ? "block px-3 py-3 text-base" : "px-3 py-2 text-sm",
    isActive
      ? "bg-brand-50 text-brand-800 underline decoration-2 underline-offset-4"
      : "text-stone-700 hover:bg-stone-100 hover:text-stone-900",
  );
}

/** The phone menu is a <details>, working without JavaScript; the admin adds its closing here (menu-behaviour.ts). */
export function SiteHeader({ menuIsland = false }: { menuIsland?: boolean }) {
  const detailsRef = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (menuIsland || !detailsRef.current) return;
    return enhanceMenu(detailsRef.current);
  }, [menuIsland]);

  return (
    <header className="sticky top-0 z-40 border-b border-stone-200 bg-white/95 backdrop-blur supports-[backdrop-filter]:bg-white/85">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between px-4 sm:px-6 lg:px-8">
        <Link to="/" reloadDocument className="font-display text-lg font-bold tracking-tight text-stone-900 sm:text-xl">
          {identity.businessName}
        </Link>

        <nav aria-label="Main" className="hidden md:block">
          <ul className="flex items-center gap-1">
            {PUBLIC_PAGES.map((page) => (
              <li key={page.path}>
                <NavLink
                  to={page.path}
                  end={page.path === "/"}
                  reloadDocument
                  className={(state) => navLinkClasses(state)}
                >
                  {page.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>

        {/* A <details> disclosure: it opens and closes without JavaScript, and states whether it is
            open (so the summary has no role and no aria-expanded). Its name and icon follow [open] in CSS. */}
        <details ref={detailsRef} {...{ [MENU_ATTRIBUTE]: "" }} className="group md:hidden">
          <summary
            {...{ [MENU_BUTTON_ATTRIBUTE]: "" }}
            aria-controls={MOBILE_MENU_ID}
            className="inline-flex h-11 w-11 cursor-pointer list-none items-center justify-center rounded-md text-stone-800 hover:bg-stone-100 [&::-webkit-details-marker]:hidden"
          >
            <span className="sr-only group-open:hidden">Open menu</span>
            <span className="sr-only hidden group-open:block">Close menu</span>
            <Menu aria-hidden="true" className="h-6 w-6 group-open:hidden" />
            <X aria-hidden="true" className="hidden h-6 w-6 group-open:block" />
          </summary>
          {/* Below the header's bar, over the page (the header is sticky, so it positions this). */}
          <nav
            id={MOBILE_MENU_ID}
            aria-label="Main"
            className="absolute inset-x-0 top-full border-y border-stone-200 bg-white shadow-sm"
          >
            <ul className="space-y-1 px-4 py-3">
              {PUBLIC_PAGES.map((page) => (
                <li key={page.path}>
                  <NavLink
                    to={page.path}
                    end={page.path === "/"}
                    reloadDocument
                    className={(state) => navLinkClasses(state, true)}
                  >
                    {page.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        </details>
      </div>
    </header>
  );
}
