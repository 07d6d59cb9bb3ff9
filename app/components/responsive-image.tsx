import type { CSSProperties, Ref } from "react";
import { preload } from "react-dom";
import type { GalleryImage } from "~/galleries/gallery";
import { AFTER_LARGEST_PAINT_ATTRIBUTE, LARGEST_PAINT_TIMING } from "~/components/largest-paint-attributes";
import { cn } from "~/lib/cn";

function srcSet(variants: { path: string; width: number }[]) {
  return variants.map((v) => `${v.path} ${v.width}w`).join(", ");
}

/** The largest paint's preload in the head, so the phone fetches its variant before reading the CSS; AVIF first. */
function preloadLargestPaint(image: Pick<GalleryImage, "variants">, sizes: string): void {
  const avif = image.variants.avif;
  if (!avif.length) return;
  preload(avif.at(-1)!.path, {
    as: "image",
    type: "image/avif",
    imageSrcSet: srcSet(avif),
    imageSizes: sizes,
    fetchPriority: "high",
  });
}

export type ResponsiveImageProps = {
  image: Pick<GalleryImage, "imagePath" | "width" | "height" | "placeholder" | "variants">;
  alt: string;
  /** The image's rendered width per layout, for the browser to pick a variant. */
  sizes: string;
  /** The page's largest paint: fetched at once, with high priority, and preloaded in the head. */
  priority?: boolean;
  /** For a photo at its natural height: keeps its box while it waits for the largest paint. */
  keepsRatio?: boolean;
  className?: string;
  imgClassName?: string;
  onLoad?: () => void;
  imgRef?: Ref<HTMLImageElement>;
  /** Marks the hero's photos for its island. */
  "data-hero-slide"?: number;
};

/** Every photo but the largest paint (`priority`) waits for it on public pages (app/islands/page-script.ts). */
export function ResponsiveImage({
  image,
  alt,
  sizes,
  priority,
  keepsRatio,
  className,
  imgClassName,
  onLoad,
  imgRef,
  "data-hero-slide": heroSlide,
}: ResponsiveImageProps) {
  if (priority) preloadLargestPaint(image, sizes);
  const placeholderStyle: CSSProperties = image.placeholder
    ? { backgroundImage: `url("${image.placeholder}")`, backgroundSize: "cover", backgroundPosition: "center" }
    : {};
  // A <picture> with a box of its own (sized by its classes or its ratio) shows the placeholder while its photo waits.
  const pictureStyle: CSSProperties = {
    ...(keepsRatio ? { display: "block", aspectRatio: `${image.width} / ${image.height}` } : {}),
    ...(keepsRatio || className ? placeholderStyle : {}),
  };
  return (
    <picture
      className={className}
      style={Object.keys(pictureStyle).length ? pictureStyle : undefined}
      data-hero-slide={heroSlide}
    >
      {image.variants.avif.length ? (
        <source type="image/avif" srcSet={srcSet(image.variants.avif)} sizes={sizes} />
      ) : null}
      {image.variants.webp.length ? (
        <source type="image/webp" srcSet={srcSet(image.variants.webp)} sizes={sizes} />
      ) : null}
      <img
        ref={imgRef}
        src={image.imagePath}
        alt={alt}
        width={image.width}
        height={image.height}
        loading={priority ? "eager" : "lazy"}
        decoding="async"
        // Every other photo waits behind the largest paint, even one on the first screen (which
        // Chromium would otherwise raise to high once laid out): decision 0055.
        fetchPriority={priority ? "high" : "low"}
        // The islands load once this has painted (app/islands/page-script.ts); React has no prop type for it.
        {...(priority ? { elementtiming: LARGEST_PAINT_TIMING } : { [AFTER_LARGEST_PAINT_ATTRIBUTE]: "" })}
        onLoad={onLoad}
        style={placeholderStyle}
        className={cn("h-auto w-full", imgClassName)}
      />
    </picture>
  );
}
