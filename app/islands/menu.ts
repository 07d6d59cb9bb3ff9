// The header's phone menu on public pages (markup: app/components/layout/site-header.tsx): a
// <details> that opens and closes without JavaScript. This adds aria-expanded, closes it when a link
// is chosen or on Escape (handing focus back to its button), and when the page comes back from the
// browser's cache.
import { markIslandMounted } from "./mounted";

const details = document.querySelector<HTMLDetailsElement>("details[data-menu]");
const button = details?.querySelector<HTMLElement>("summary[data-menu-button]");
const menu = document.getElementById("mobile-menu");

if (details && button && menu) {
  const showState = () => button.setAttribute("aria-expanded", String(details.open));
  showState();
  details.addEventListener("toggle", showState);
  menu.addEventListener("click", (event) => {
    if ((event.target as Element).closest("a")) details.open = false;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !details.open) return;
    details.open = false;
    button.focus();
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) details.open = false;
  });
}
markIslandMounted("menu");
