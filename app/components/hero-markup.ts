// Shared by hero.tsx and app/islands/hero.island.ts, so neither renames one alone.

export const HERO_ATTRIBUTE = {
  /** On the <section>: the index of the photo shown, which the island updates. */
  index: "data-hero-index",
  /** On the <section>: the rotation period (ms) and the swipe distance (px), from hero.tsx's constants. */
  rotationMs: "data-hero-rotation-ms",
  swipePx: "data-hero-swipe-px",
  /** On each photo's <picture>: its place in the gallery (0 is the first, rendered in the page). */
  slide: "data-hero-slide",
  /** On the <template> that holds the other photos until their turn. */
  slides: "data-hero-slides",
  /** The pause / play button, its text, and its two icons (the attribute's value is the state each shows). */
  toggle: "data-hero-toggle",
  toggleLabel: "data-hero-toggle-label",
  icon: "data-hero-icon",
} as const;

export type HeroState = "playing" | "paused";
/** The button's text in each state: it names what a press does. */
export const HERO_TOGGLE_LABEL: Record<HeroState, string> = { playing: "Pause slideshow", paused: "Play slideshow" };
/** An icon of the button: shown in this state only. */
export const heroIconAttributes = (state: HeroState) => ({ [HERO_ATTRIBUTE.icon]: state });

/** A photo's layer is shown or hidden by one of these classes; its transition fades between them. */
export const HERO_SLIDE_CLASS = { shown: "opacity-100", hidden: "opacity-0" } as const;
