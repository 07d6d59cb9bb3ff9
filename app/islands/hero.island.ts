// The home page's hero slideshow (markup: app/components/hero.tsx, hooks: hero-markup.ts): rotates
// every `data-hero-rotation-ms` ms through the homepage gallery, the first turn counted from when the first
// photo showed (not from when this script arrived), swipes at `data-hero-swipe-px` px, and stays still
// for visitors who prefer reduced motion.
import { HERO_ATTRIBUTE, HERO_SLIDE_CLASS, HERO_TOGGLE_LABEL, type HeroState } from "~/components/hero-markup";
import { LARGEST_PAINT_AT_ATTRIBUTE } from "~/components/largest-paint-attributes";
import { markIslandMounted } from "./mounted";

const hero = document.querySelector<HTMLElement>(`section[${HERO_ATTRIBUTE.index}]`);
const template = hero?.querySelector<HTMLTemplateElement>(`template[${HERO_ATTRIBUTE.slides}]`);

if (hero && template) {
  const rotationMs = Number(hero.getAttribute(HERO_ATTRIBUTE.rotationMs));
  const swipePx = Number(hero.getAttribute(HERO_ATTRIBUTE.swipePx));
  const waiting = [...template.content.children] as HTMLElement[];
  const count = waiting.length + 1;
  const slides = new Map<number, HTMLElement>();
  const loaded = new Set<number>();
  const toggle = hero.querySelector<HTMLButtonElement>(`[${HERO_ATTRIBUTE.toggle}]`)!;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  let index = 0;
  let paused = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const watchLoad = (i: number, slide: HTMLElement) => {
    const img = slide.querySelector("img")!;
    if (img.complete && img.naturalWidth > 0) loaded.add(i);
    else img.addEventListener("load", () => loaded.add(i), { once: true });
  };
  // Mounted in order, so the photos stay in the gallery's order in the page.
  const mount = (i: number) => {
    if (slides.has(i)) return;
    const slide = waiting[i - 1]!.cloneNode(true) as HTMLElement;
    const after = [...slides.keys()].filter((j) => j > i).sort((a, b) => a - b)[0];
    hero.insertBefore(slide, after === undefined ? template : slides.get(after)!);
    slides.set(i, slide);
    watchLoad(i, slide);
  };
  const rotating = () => !paused && !reducedMotion.matches;
  const show = (i: number) => {
    mount(i);
    slides.get(index)?.classList.replace(HERO_SLIDE_CLASS.shown, HERO_SLIDE_CLASS.hidden);
    slides.get(i)!.classList.replace(HERO_SLIDE_CLASS.hidden, HERO_SLIDE_CLASS.shown);
    index = i;
    hero.setAttribute(HERO_ATTRIBUTE.index, String(i));
    // The next photo is fetched ahead of its turn.
    if (rotating()) mount((i + 1) % count);
  };
  // Each turn is due rotationMs after the last; a photo that has not finished loading waits a turn.
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      const next = (index + 1) % count;
      if (loaded.has(next)) show(next);
      schedule(rotationMs);
    }, delayMs);
  };
  const restart = (firstDelayMs = rotationMs) => {
    clearTimeout(timer);
    timer = undefined;
    toggle.hidden = reducedMotion.matches;
    if (!rotating()) return;
    mount((index + 1) % count);
    schedule(firstDelayMs);
  };
  /** The first turn: rotationMs after the first photo loaded (the head script noted when, in this page's clock). */
  const firstTurnInMs = () => {
    const noted = document.documentElement.getAttribute(LARGEST_PAINT_AT_ATTRIBUTE);
    const shownAt = Number(noted);
    const firstIsLargestPaint = first.querySelector("img[elementtiming]") !== null;
    if (!firstIsLargestPaint || noted === null || !Number.isFinite(shownAt)) return rotationMs;
    return Math.max(0, rotationMs - (performance.now() - shownAt));
  };

  const first = hero.querySelector<HTMLElement>(`[${HERO_ATTRIBUTE.slide}]`)!;
  slides.set(0, first);
  watchLoad(0, first);

  toggle.addEventListener("click", () => {
    paused = !paused;
    const state: HeroState = paused ? "paused" : "playing";
    toggle.querySelector(`[${HERO_ATTRIBUTE.toggleLabel}]`)!.textContent = HERO_TOGGLE_LABEL[state];
    for (const icon of toggle.querySelectorAll<HTMLElement>(`[${HERO_ATTRIBUTE.icon}]`)) {
      icon.toggleAttribute("hidden", icon.getAttribute(HERO_ATTRIBUTE.icon) !== state);
    }
    restart();
  });

  let swipeStart: number | null = null;
  hero.addEventListener("pointerdown", (event) => {
    swipeStart = event.clientX;
  });
  hero.addEventListener("pointerup", (event) => {
    if (swipeStart === null) return;
    const distance = event.clientX - swipeStart;
    swipeStart = null;
    if (Math.abs(distance) < swipePx) return;
    // Leftwards brings the next photo, rightwards the previous one.
    show((index + (distance < 0 ? 1 : count - 1)) % count);
    restart();
  });
  hero.addEventListener("pointercancel", () => {
    swipeStart = null;
  });

  reducedMotion.addEventListener("change", () => restart());
  restart(firstTurnInMs());
}
markIslandMounted("hero");
