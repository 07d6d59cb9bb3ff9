import { rectSortingStrategy } from "@dnd-kit/sortable";
import { useQuery } from "@tanstack/react-query";
import { ImagePlus, Upload } from "lucide-react";
import { Button } from "~/components/ui/button";
import {
  GALLERY_LOAD_ERROR,
  GALLERY_TITLES,
  galleryImageAlt,
  type GalleryImage,
  type GalleryType,
} from "~/galleries/gallery";
import { plural } from "~/lib/plural";
import { SubViewFrame } from "../admin-ui";
import { SortableArea } from "../sortable";
import { GalleryImageCard } from "./gallery-image-card";
import { useReorderImages } from "./gallery-mutations";
import { galleryKey } from "../query-client";
import { UploadDialog } from "./upload-dialog";
import { ErrorNotice } from "~/components/ui/error-notice";

/** The tip above the grid: the spec's for a mouse, and one a phone can follow. */
export const GALLERY_TIPS = {
  pointer: "Tip: Drag images to reorder them, click captions to edit, hover for options.",
  touch: "Tip: Press and hold the handle to drag, tap a caption to edit.",
} as const;

/** Spec §2 Gallery manager: upload, reorder by dragging, caption and delete one gallery's images. */
export function GalleryManager({ galleryType, onBack }: { galleryType: GalleryType; onBack: () => void }) {
  const gallery = useQuery<GalleryImage[]>({ queryKey: galleryKey(galleryType) });
  const reorder = useReorderImages(galleryType);
  const images = gallery.data ?? [];

  return (
    <SubViewFrame
      title={`${GALLERY_TITLES[galleryType]} Gallery`}
      onBack={onBack}
      actions={
        <UploadDialog
          galleryType={galleryType}
          currentCount={images.length}
          trigger={
            <Button className="w-full sm:w-auto">
              <Upload aria-hidden="true" className="h-4 w-4" />
              Upload Images
            </Button>
          }
        />
      }
      intro={
        gallery.isSuccess && images.length ? (
          <p>{plural(images.length, "image", "images")}, shown on the website in this order.</p>
        ) : null
      }
    >
      {gallery.isPending ? (
        <p role="status" className="text-stone-700">
          Loading images...
        </p>
      ) : gallery.isError ? (
        <ErrorNotice>{GALLERY_LOAD_ERROR}</ErrorNotice>
      ) : images.length === 0 ? (
        <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-stone-300 bg-white p-10 text-center">
          <ImagePlus aria-hidden="true" className="h-10 w-10 text-stone-500" />
          <p className="text-lg font-semibold text-stone-900">No images yet</p>
          <p className="text-stone-600">Upload your first image to get started</p>
        </div>
      ) : (
        <>
          <p className="rounded-lg bg-brand-50 px-4 py-3 text-sm text-stone-800">
            {/* A touch screen cannot hover: it gets its own tip. */}
            <span className="pointer-coarse:hidden">{GALLERY_TIPS.pointer}</span>
            <span className="hidden pointer-coarse:inline">{GALLERY_TIPS.touch}</span>
          </p>
          <SortableArea
            items={images}
            noun="an image"
            nameOf={(image, index) => galleryImageAlt(image, galleryType, index)}
            strategy={rectSortingStrategy}
            onMove={(reordered) => reorder.mutate(reordered)}
          >
            <ul
              aria-label={`${GALLERY_TITLES[galleryType]} images`}
              aria-busy={reorder.isPending || undefined}
              className="grid grid-cols-2 gap-3 sm:gap-4 md:grid-cols-3 lg:grid-cols-4"
            >
              {images.map((image, index) => (
                <GalleryImageCard key={image.id} image={image} alt={galleryImageAlt(image, galleryType, index)} />
              ))}
            </ul>
          </SortableArea>
        </>
      )}
    </SubViewFrame>
  );
}
