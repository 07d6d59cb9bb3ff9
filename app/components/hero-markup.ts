// The hooks between the hero's markup (hero.tsx renders it on the server) and the hero island that
// drives it (app/islands/hero.island.ts): both import these, so neither renames one alone.

/** On the <section>: the index of the photo shown, which the island updates. */
export const HERO_INDEX_ATTRIBUTE = "data-hero-index";
/** On the <section>: the rotation period (ms) and the swipe distance (px), from hero.tsx's constants. */
export const HERO_ROTATION_MS_ATTRIBUTE = "data-hero-rotation-ms";
export const HERO_SWIPE_PX_ATTRIBUTE = "data-hero-swipe-px";
/** On each photo's <picture>: its place in the gallery (0 is the first, rendered in the page). */
export const HERO_SLIDE_ATTRIBUTE = "data-hero-slide";
/** On the <template> that holds the other photos until their turn. */
export const HERO_SLIDES_ATTRIBUTE = "data-hero-slides";
/** The pause / play button, its text, and its two icons (the attribute's value is the state each shows). */
export const HERO_TOGGLE_ATTRIBUTE = "data-hero-toggle";
export const HERO_TOGGLE_LABEL_ATTRIBUTE = "data-hero-toggle-label";
export const HERO_ICON_ATTRIBUTE = "data-hero-icon";

export type HeroState = "playing" | "paused";
/** The button's text in each state: it names what a press does. */
export const HERO_TOGGLE_LABEL: Record<HeroState, string> = { playing: "Pause slideshow", paused: "Play slideshow" };
/** An icon of the button: shown in this state only. */
export const heroIconAttributes = (state: HeroState) => ({ [HERO_ICON_ATTRIBUTE]: state });

/** A photo's layer is shown or hidden by one of these classes; its transition fades between them. */
export const HERO_SLIDE_SHOWN_CLASS = "opacity-100";
export const HERO_SLIDE_HIDDEN_CLASS = "opacity-0";
