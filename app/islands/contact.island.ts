// The contact page's island loader. React DOM (about 60 KB) is fetched and run when the form comes
// near the screen or is first touched, not while the page loads: no long task before the page is
// usable (TBT). Until then the form posts without JavaScript and the route answers it.
import { CONTACT_ISLAND_ID } from "~/components/contact-island-id";
import { markIslandMounted } from "./mounted";

const container = document.getElementById(CONTACT_ISLAND_ID);
if (container) {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    observer.disconnect();
    void import("./contact-hydrate").then(({ hydrateContactIsland }) => hydrateContactIsland(container));
  };
  const observer = new IntersectionObserver(
    (entries) => {
      if (entries.some((entry) => entry.isIntersecting)) start();
    },
    { rootMargin: "400px 0px" },
  );
  observer.observe(container);
  for (const type of ["focusin", "pointerdown", "touchstart"])
    container.addEventListener(type, start, { once: true, passive: true });
} else {
  markIslandMounted("contact");
}
