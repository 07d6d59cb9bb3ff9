import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { GalleryImage } from "~/galleries/gallery";
import { GALLERY_PLACEHOLDER_COUNT, GalleryGrid } from "./gallery-grid";

function image(id: string, caption = ""): GalleryImage {
  const variant = (width: number, ext: string) => ({
    width,
    height: width / 1.5,
    path: `/media/${id}-${width}.${ext}`,
    bytes: 1000,
  });
  return {
    id,
    imagePath: `/media/${id}.jpg`,
    caption,
    galleryType: "traditional",
    sortOrder: 0,
    width: 1200,
    height: 800,
    placeholder: "data:image/webp;base64,AAAA",
    variants: {
      avif: [variant(480, "avif"), variant(960, "avif")],
      webp: [variant(480, "webp"), variant(960, "webp")],
      jpeg: variant(1200, "jpg"),
    },
  };
}

describe("GalleryGrid", () => {
  it("shows six placeholder tiles while loading", () => {
    render(<GalleryGrid galleryType="traditional" state={{ status: "loading" }} />);
    expect(screen.getAllByTestId("gallery-placeholder")).toHaveLength(GALLERY_PLACEHOLDER_COUNT);
    expect(GALLERY_PLACEHOLDER_COUNT).toBe(6);
    expect(screen.getByRole("status", { name: "Loading gallery" })).toHaveAttribute("aria-busy", "true");
  });

  it("says so when the gallery failed to load", () => {
    render(<GalleryGrid galleryType="traditional" state={{ status: "error" }} />);
    expect(screen.getByRole("alert")).toHaveTextContent("Unable to load gallery images.");
    expect(screen.queryByRole("img")).toBeNull();
  });

  it("says so when the gallery is empty", () => {
    render(<GalleryGrid galleryType="veneer" state={{ status: "ok", images: [] }} />);
    expect(screen.getByText("No images available in this gallery.")).toBeInTheDocument();
  });

  it("loads only the first image at once, with high priority, when the gallery leads the page", () => {
    render(
      <GalleryGrid
        galleryType="landscaping"
        state={{ status: "ok", images: [image("a"), image("b")] }}
        eagerFirstImage
      />,
    );
    const [first, second] = screen.getAllByRole("img");
    expect(first).toHaveAttribute("loading", "eager");
    expect(first).toHaveAttribute("fetchpriority", "high");
    expect(second).toHaveAttribute("loading", "lazy");
    expect(second).toHaveAttribute("fetchpriority", "low");
  });

  it("shows lazy images with captions, alt text falling back to the gallery type and number", () => {
    render(
      <GalleryGrid
        galleryType="traditional"
        state={{ status: "ok", images: [image("a", "Basalt wall, Ōakura"), image("b"), image("c", "  ")] }}
      />,
    );
    const images = screen.getAllByRole("img");
    expect(images.map((img) => img.getAttribute("alt"))).toEqual([
      "Basalt wall, Ōakura",
      "traditional 2",
      "traditional 3",
    ]);
    for (const img of images) {
      expect(img).toHaveAttribute("loading", "lazy");
      expect(img).toHaveAttribute("decoding", "async");
      expect(img).toHaveAttribute("width", "1200");
      expect(img).toHaveAttribute("height", "800");
      expect(img.getAttribute("style")).toContain("data:image/webp;base64,AAAA");
    }
    expect(screen.getByText("Basalt wall, Ōakura").tagName).toBe("FIGCAPTION");
    expect(document.querySelectorAll("figcaption")).toHaveLength(1);
    const sources = document.querySelectorAll("picture source");
    expect(sources[0]).toHaveAttribute("type", "image/avif");
    expect(sources[0]).toHaveAttribute("srcset", "/media/a-480.avif 480w, /media/a-960.avif 960w");
    expect(sources[1]).toHaveAttribute("type", "image/webp");
    expect(sources[0]?.getAttribute("sizes")).toMatch(/vw/);
  });
});
