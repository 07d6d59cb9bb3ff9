// The header's mobile menu on public pages (markup: app/components/layout/site-header.tsx).
// Without JavaScript the header's <noscript> links stand in for it.
import { markIslandMounted } from "./mounted";

const button = document.querySelector<HTMLButtonElement>("[data-menu-button]");
const menu = document.getElementById("mobile-menu");

if (button && menu) {
  const setOpen = (open: boolean) => {
    menu.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    button.setAttribute("aria-label", open ? "Close menu" : "Open menu");
    for (const icon of button.querySelectorAll<HTMLElement>("[data-menu-icon]")) {
      icon.toggleAttribute("hidden", (icon.dataset.menuIcon === "open") !== open);
    }
  };
  button.addEventListener("click", () => setOpen(menu.hidden));
  // Choosing a link closes it; so does Escape, which hands focus back to the button.
  menu.addEventListener("click", (event) => {
    if ((event.target as Element).closest("a")) setOpen(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || menu.hidden) return;
    setOpen(false);
    button.focus();
  });
  // Back to this page from the browser's cache: as it was left, so closed.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) setOpen(false);
  });
}
markIslandMounted("menu");
