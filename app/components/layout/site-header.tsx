import { Menu, X } from "lucide-react";
import { useState } from "react";
import { Link, NavLink, useLocation } from "react-router";
import { identity } from "~/identity";
import { cn } from "~/lib/cn";
import { NAV_LINKS } from "./nav-links";

function navLinkClasses({ isActive }: { isActive: boolean }, mobile = false) {
  return cn(
    "rounded-md font-medium transition-colors",
    mobile ? "block px-3 py-3 text-base" : "px-3 py-2 text-sm",
    isActive ? "bg-brand-50 text-brand-800 underline decoration-2 underline-offset-4" : "text-stone-700 hover:bg-stone-100 hover:text-stone-900",
  );
}

export function SiteHeader() {
  const { pathname } = useLocation();
  // The menu is open for one page: any navigation (a link, back/forward) closes it.
  const [openOnPath, setOpenOnPath] = useState<string | null>(null);
  const menuOpen = openOnPath === pathname;
  const setMenuOpen = (open: boolean) => setOpenOnPath(open ? pathname : null);

  return (
    <header className="sticky top-0 z-40 border-b border-stone-200 bg-white/95 backdrop-blur supports-[backdrop-filter]:bg-white/85">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between px-4 sm:px-6 lg:px-8">
        <Link to="/" reloadDocument className="font-display text-lg font-bold tracking-tight text-stone-900 sm:text-xl">
          {identity.businessName}
        </Link>

        <nav aria-label="Main" className="hidden md:block">
          <ul className="flex items-center gap-1">
            {NAV_LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.to === "/"} reloadDocument className={(state) => navLinkClasses(state)}>
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>

        {/* On public pages the menu island (app/islands/menu.ts) drives this same markup. */}
        <button
          type="button"
          data-menu-button=""
          className="inline-flex h-11 w-11 items-center justify-center rounded-md text-stone-800 hover:bg-stone-100 md:hidden"
          aria-expanded={menuOpen}
          aria-controls="mobile-menu"
          aria-label={menuOpen ? "Close menu" : "Open menu"}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <span data-menu-icon="closed" hidden={menuOpen}>
            <Menu aria-hidden="true" className="h-6 w-6" />
          </span>
          <span data-menu-icon="open" hidden={!menuOpen}>
            <X aria-hidden="true" className="h-6 w-6" />
          </span>
        </button>
      </div>

      <nav id="mobile-menu" aria-label="Main" hidden={!menuOpen} className="border-t border-stone-200 bg-white md:hidden">
        <ul className="space-y-1 px-4 py-3">
          {NAV_LINKS.map((link) => (
            <li key={link.to}>
              <NavLink
                to={link.to}
                end={link.to === "/"}
                reloadDocument
                className={(state) => navLinkClasses(state, true)}
                onClick={() => setMenuOpen(false)}
              >
                {link.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>

      {/* Without JavaScript the menu button cannot work, so small screens get the links inline. */}
      <noscript>
        <nav aria-label="Main (no script)" className="border-t border-stone-200 bg-white md:hidden">
          <ul className="flex flex-wrap gap-1 px-4 py-2">
            {NAV_LINKS.map((link) => (
              <li key={link.to}>
                <a href={link.to} className="block px-3 py-2 text-sm font-medium text-stone-700">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </noscript>
    </header>
  );
}
