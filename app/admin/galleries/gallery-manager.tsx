import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  TouchSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from "@dnd-kit/core";
import { SortableContext, arrayMove, rectSortingStrategy, sortableKeyboardCoordinates } from "@dnd-kit/sortable";
import { useQuery } from "@tanstack/react-query";
import { ImagePlus, Upload } from "lucide-react";
import { useId, useState, type PointerEvent as ReactPointerEvent } from "react";
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
import { GalleryImageCard } from "./gallery-image-card";
import { useReorderImages } from "./gallery-mutations";
import { galleryKey } from "../query-client";
import { UploadDialog } from "./upload-dialog";
import { ErrorNotice } from "~/components/ui/error-notice";

/** Mouse and pen drags start after a few pixels; touch is left to the TouchSensor's long press. */
class MouseOrPenSensor extends PointerSensor {
  static override activators = [
    {
      eventName: "onPointerDown" as const,
      handler: (event: ReactPointerEvent, options: Parameters<(typeof PointerSensor.activators)[0]["handler"]>[1]) =>
        event.nativeEvent.pointerType === "touch" ? false : PointerSensor.activators[0]!.handler(event, options),
    },
  ];
}

/** The tip above the grid: the spec's for a mouse, and one a phone can follow. */
export const GALLERY_TIPS = {
  pointer: "Tip: Drag images to reorder them, click captions to edit, hover for options.",
  touch: "Tip: Press and hold the handle to drag, tap a caption to edit.",
} as const;

export const DRAG_INSTRUCTIONS =
  "To move an image, press Space or Enter on its drag handle, move it with the arrow keys, then press Space or Enter to drop it, or Escape to cancel. On a touch screen, press and hold the handle, then drag.";

/**
 * What screen readers hear while an image moves. `moved` tells the first
 * "over itself" (right after pick-up, which would cut the pick-up message
 * short) from coming back to the starting place later.
 */
function announcementsFor(images: GalleryImage[], galleryType: GalleryType, drag: { moved: boolean }): Announcements {
  const position = (id: UniqueIdentifier | undefined) => images.findIndex((image) => image.id === id) + 1;
  const name = (id: UniqueIdentifier) => {
    const index = images.findIndex((image) => image.id === id);
    return index >= 0 ? galleryImageAlt(images[index]!, galleryType, index) : "image";
  };
  const total = images.length;
  return {
    onDragStart: ({ active }) => {
      drag.moved = false;
      return `Picked up ${name(active.id)}, position ${position(active.id)} of ${total}.`;
    },
    onDragOver: ({ active, over }) => {
      if (over && over.id === active.id && !drag.moved) return undefined;
      drag.moved = true;
      return over
        ? `${name(active.id)} is over position ${position(over.id)} of ${total}.`
        : `${name(active.id)} is no longer over a position.`;
    },
    onDragEnd: ({ active, over }) =>
      over
        ? `${name(active.id)} was dropped at position ${position(over.id)} of ${total}.`
        : `${name(active.id)} was dropped.`,
    onDragCancel: ({ active }) =>
      `Moving was cancelled. ${name(active.id)} stays at position ${position(active.id)} of ${total}.`,
  };
}

/** Spec §2 Gallery manager: upload, reorder by dragging, caption and delete one gallery's images. */
export function GalleryManager({ galleryType, onBack }: { galleryType: GalleryType; onBack: () => void }) {
  const dndId = useId();
  // Per drag, whether the image has left its starting place yet (only read by announcements).
  const [dragState] = useState(() => ({ moved: false }));
  const gallery = useQuery<GalleryImage[]>({ queryKey: galleryKey(galleryType) });
  const reorder = useReorderImages(galleryType);
  const images = gallery.data ?? [];

  const sensors = useSensors(
    useSensor(MouseOrPenSensor, { activationConstraint: { distance: 5 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    const from = images.findIndex((image) => image.id === active.id);
    const to = images.findIndex((image) => image.id === over.id);
    if (from < 0 || to < 0) return;
    reorder.mutate(arrayMove(images, from, to));
  }

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
          <DndContext
            id={dndId}
            sensors={sensors}
            collisionDetection={closestCenter}
            onDragEnd={onDragEnd}
            accessibility={{
              announcements: announcementsFor(images, galleryType, dragState),
              screenReaderInstructions: { draggable: DRAG_INSTRUCTIONS },
            }}
          >
            <SortableContext items={images.map((image) => image.id)} strategy={rectSortingStrategy}>
              <ul
                aria-label={`${GALLERY_TITLES[galleryType]} images`}
                aria-busy={reorder.isPending || undefined}
                className="grid grid-cols-2 gap-3 sm:gap-4 md:grid-cols-3 lg:grid-cols-4"
              >
                {images.map((image, index) => (
                  <GalleryImageCard key={image.id} image={image} alt={galleryImageAlt(image, galleryType, index)} />
                ))}
              </ul>
            </SortableContext>
          </DndContext>
        </>
      )}
    </SubViewFrame>
  );
}
