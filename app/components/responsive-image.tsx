import type { CSSProperties, Ref } from "react";
import type { GalleryImage } from "~/galleries/gallery";
import { cn } from "~/lib/cn";

function srcSet(variants: { path: string; width: number }[]) {
  return variants.map((v) => `${v.path} ${v.width}w`).join(", ");
}

export type ResponsiveImageProps = {
  image: Pick<GalleryImage, "imagePath" | "width" | "height" | "placeholder" | "variants">;
  alt: string;
  /** The image's rendered width per layout, for the browser to pick a variant. */
  sizes: string;
  priority?: boolean;
  className?: string;
  imgClassName?: string;
  onLoad?: () => void;
  imgRef?: Ref<HTMLImageElement>;
};

/**
 * A processed gallery image: AVIF, then WebP, then the JPEG fallback, with its
 * intrinsic size set (no layout shift) and the blurred placeholder behind it
 * until it has loaded.
 */
export function ResponsiveImage({
  image,
  alt,
  sizes,
  priority,
  className,
  imgClassName,
  onLoad,
  imgRef,
}: ResponsiveImageProps) {
  const placeholderStyle: CSSProperties = image.placeholder
    ? { backgroundImage: `url("${image.placeholder}")`, backgroundSize: "cover", backgroundPosition: "center" }
    : {};
  return (
    <picture className={className}>
      {image.variants.avif.length ? <source type="image/avif" srcSet={srcSet(image.variants.avif)} sizes={sizes} /> : null}
      {image.variants.webp.length ? <source type="image/webp" srcSet={srcSet(image.variants.webp)} sizes={sizes} /> : null}
      <img
        ref={imgRef}
        src={image.imagePath}
        alt={alt}
        width={image.width}
        height={image.height}
        loading={priority ? "eager" : "lazy"}
        decoding="async"
        fetchPriority={priority ? "high" : undefined}
        onLoad={onLoad}
        style={placeholderStyle}
        className={cn("h-auto w-full", imgClassName)}
      />
    </picture>
  );
}
