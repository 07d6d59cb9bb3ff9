// The hooks between the header's phone menu (site-header.tsx renders it) and this behaviour.
/** On the menu's <details>. */
export const MENU_ATTRIBUTE = "data-menu";
/** On its <summary>, the button that opens and closes it. */
export const MENU_BUTTON_ATTRIBUTE = "data-menu-button";
/** The list of links it opens (the button's aria-controls). */
export const MOBILE_MENU_ID = "mobile-menu";

/**
 * The phone menu is a <details> (so the summary carries no role and no aria-expanded) that works without script.
 * This adds closing on an outside tap or focus, Escape, a chosen link, and a return from the back/forward cache,
 * for both headers (app/islands/menu.island.ts and site-header.tsx). Returns the remover.
 */
export function enhanceMenu(details: HTMLDetailsElement): () => void {
  const button = details.querySelector<HTMLElement>(`[${MENU_BUTTON_ATTRIBUTE}]`);
  const close = () => {
    details.open = false;
  };
  const outside = (event: Event) => {
    if (details.open && event.target instanceof Node && !details.contains(event.target)) close();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || !details.open) return;
    close();
    button?.focus();
  };
  const onClick = (event: MouseEvent) => {
    if (event.target instanceof Element && event.target.closest("a")) close();
  };
  const onPageShow = (event: PageTransitionEvent) => {
    if (event.persisted) close();
  };
  document.addEventListener("pointerdown", outside);
  document.addEventListener("focusin", outside);
  document.addEventListener("keydown", onKey);
  details.addEventListener("click", onClick);
  window.addEventListener("pageshow", onPageShow);
  return () => {
    document.removeEventListener("pointerdown", outside);
    document.removeEventListener("focusin", outside);
    document.removeEventListener("keydown", onKey);
    details.removeEventListener("click", onClick);
    window.removeEventListener("pageshow", onPageShow);
  };
}
