import { Pause, Play } from "lucide-react";
import { Link } from "react-router";
import type { GalleryImage } from "~/galleries/gallery";
import { HERO_ATTRIBUTE, HERO_SLIDE_CLASS, HERO_TOGGLE_LABEL, heroIconAttributes } from "./hero-markup";
import { buttonClasses } from "./ui/button";
import { ResponsiveImage } from "./responsive-image";

/** Spec §9: the hero advances every 5000 ms. */
export const HERO_ROTATION_MS = 5000;
/** A horizontal swipe this long (px) moves the hero to the next or the previous photo. */
export const HERO_SWIPE_PX = 50;
const HERO_SIZES = "100vw";
/** Each photo's layer: the hero island (app/islands/hero.island.ts) fades them by swapping the shown / hidden class. */
const SLIDE_CLASSES = "absolute inset-0 -z-20 transition-opacity duration-1000";

/** The other photos wait in a <template> (not fetched) for the island to rotate to them, unless reduced motion. */
export function Hero({ images, title, subtitle }: { images: GalleryImage[]; title: string; subtitle: string }) {
  const [first, ...rest] = images;

  return (
    <section
      aria-labelledby="hero-title"
      {...{
        [HERO_ATTRIBUTE.index]: 0,
        [HERO_ATTRIBUTE.rotationMs]: HERO_ROTATION_MS,
        [HERO_ATTRIBUTE.swipePx]: HERO_SWIPE_PX,
      }}
      className="relative isolate flex min-h-[28rem] touch-pan-y items-center overflow-hidden bg-gradient-to-br from-stone-950 via-stone-800 to-stone-700 sm:min-h-[34rem]"
    >
      {first ? (
        <ResponsiveImage
          image={first}
          alt=""
          sizes={HERO_SIZES}
          priority
          className={`${SLIDE_CLASSES} ${HERO_SLIDE_CLASS.shown}`}
          imgClassName="h-full object-cover"
          {...{ [HERO_ATTRIBUTE.slide]: 0 }}
        />
      ) : null}
      {rest.length ? (
        <template {...{ [HERO_ATTRIBUTE.slides]: "" }}>
          {rest.map((image, i) => (
            <ResponsiveImage
              key={image.id}
              image={image}
              alt=""
              sizes={HERO_SIZES}
              className={`${SLIDE_CLASSES} ${HERO_SLIDE_CLASS.hidden}`}
              imgClassName="h-full object-cover"
              {...{ [HERO_ATTRIBUTE.slide]: i + 1 }}
            />
          ))}
        </template>
      ) : null}
      {/* Darkens photos enough for white text to pass contrast checks. */}
      <div aria-hidden="true" className="absolute inset-0 -z-10 bg-stone-950/60" />

      <div className="mx-auto w-full max-w-7xl px-4 py-20 sm:px-6 lg:px-8">
        <div className="max-w-2xl text-white">
          <h1 id="hero-title" className="font-display text-4xl font-bold tracking-tight sm:text-5xl">
            {title}
          </h1>
          <p className="mt-5 text-lg leading-8 whitespace-pre-line text-stone-100 sm:text-xl">{subtitle}</p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to="/contact" className={buttonClasses("primary", "lg")}>
              Get a Quote
            </Link>
            <Link to="/stonework" className={buttonClasses("outline-light", "lg")}>
              View Portfolio
            </Link>
          </div>
        </div>
      </div>

      {rest.length ? (
        // Shown by the island once it knows the photos may move.
        <button
          type="button"
          hidden
          {...{ [HERO_ATTRIBUTE.toggle]: "" }}
          className="absolute right-4 bottom-4 inline-flex h-11 items-center gap-2 rounded-full bg-stone-950/70 px-4 text-sm font-medium text-white hover:bg-stone-950"
        >
          <span {...heroIconAttributes("playing")}>
            <Pause aria-hidden="true" className="h-4 w-4" />
          </span>
          <span {...heroIconAttributes("paused")} hidden>
            <Play aria-hidden="true" className="h-4 w-4" />
          </span>
          <span {...{ [HERO_ATTRIBUTE.toggleLabel]: "" }}>{HERO_TOGGLE_LABEL.playing}</span>
        </button>
      ) : null}
    </section>
  );
}
