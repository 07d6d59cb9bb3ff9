import { Pause, Play } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { preload } from "react-dom";
import { Link } from "react-router";
import type { GalleryImage } from "~/galleries/gallery";
import { cn } from "~/lib/cn";
import { usePrefersReducedMotion } from "~/lib/use-prefers-reduced-motion";
import { buttonClasses } from "./ui/button";
import { ResponsiveImage } from "./responsive-image";

/** Spec §9: the hero advances every 5000 ms. */
export const HERO_ROTATION_MS = 5000;
const HERO_SIZES = "100vw";

function srcSetOf(variants: { path: string; width: number }[]) {
  return variants.map((v) => `${v.path} ${v.width}w`).join(", ");
}

/** The next index, wrapping to the start (spec §4). */
export function nextHeroIndex(index: number, count: number): number {
  return count > 0 ? (index + 1) % count : 0;
}

export function Hero({ images, title, subtitle }: { images: GalleryImage[]; title: string; subtitle: string }) {
  const [index, setIndex] = useState(0);
  const [loaded, setLoaded] = useState<ReadonlySet<number>>(() => new Set());
  // Read by the rotation timer; updated in the load handler itself, so a tick
  // right after a load already sees it.
  const loadedRef = useRef(loaded);
  const [paused, setPaused] = useState(false);
  const reducedMotion = usePrefersReducedMotion();
  const canRotate = images.length > 1 && !reducedMotion;
  const rotating = canRotate && !paused;
  const next = nextHeroIndex(index, images.length);

  const first = images[0];
  if (first) {
    // The first hero image is the page's largest paint: fetch it before anything else.
    const avif = first.variants.avif;
    if (avif.length) {
      preload(avif.at(-1)!.path, {
        as: "image",
        type: "image/avif",
        imageSrcSet: srcSetOf(avif),
        imageSizes: HERO_SIZES,
        fetchPriority: "high",
      });
    }
  }

  const markLoaded = useCallback((i: number) => {
    if (loadedRef.current.has(i)) return;
    loadedRef.current = new Set(loadedRef.current).add(i);
    setLoaded(loadedRef.current);
  }, []);

  useEffect(() => {
    if (!rotating) return;
    const timer = setInterval(() => {
      setIndex((current) => {
        const candidate = nextHeroIndex(current, images.length);
        // Only swap to an image that has finished loading; otherwise wait a turn.
        return loadedRef.current.has(candidate) ? candidate : current;
      });
    }, HERO_ROTATION_MS);
    return () => clearInterval(timer);
  }, [rotating, images.length]);

  // Mounted: the current image, the next one ahead of its turn, and any already loaded.
  const isMounted = (i: number) => i === index || (rotating && i === next) || loaded.has(i);

  return (
    <section
      aria-labelledby="hero-title"
      data-hero-index={index}
      className="relative isolate flex min-h-[28rem] items-center overflow-hidden bg-gradient-to-br from-stone-950 via-stone-800 to-stone-700 sm:min-h-[34rem]"
    >
      {images.map((image, i) =>
        isMounted(i) ? (
          <ResponsiveImage
            key={image.id}
            image={image}
            alt=""
            sizes={HERO_SIZES}
            priority={i === 0}
            className={cn(
              "absolute inset-0 -z-20 transition-opacity duration-1000",
              i === index ? "opacity-100" : "opacity-0",
            )}
            imgClassName="h-full object-cover"
            onLoad={() => markLoaded(i)}
            imgRef={(img) => {
              if (img?.complete && img.naturalWidth > 0) markLoaded(i);
            }}
          />
        ) : null,
      )}
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

      {canRotate ? (
        <button
          type="button"
          onClick={() => setPaused((p) => !p)}
          className="absolute right-4 bottom-4 inline-flex h-11 items-center gap-2 rounded-full bg-stone-950/70 px-4 text-sm font-medium text-white hover:bg-stone-950"
        >
          {paused ? <Play aria-hidden="true" className="h-4 w-4" /> : <Pause aria-hidden="true" className="h-4 w-4" />}
          {paused ? "Play slideshow" : "Pause slideshow"}
        </button>
      ) : null}
    </section>
  );
}
