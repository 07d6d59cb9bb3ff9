/** The site's main navigation (spec §2 "Shared layout"). */
export const NAV_LINKS = [
  { to: "/", label: "Home" },
  { to: "/stonework", label: "Stonework" },
  { to: "/landscaping", label: "Hard Landscaping" },
  { to: "/contact", label: "Contact" },
] as const;
