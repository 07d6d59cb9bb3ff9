import * as DialogPrimitive from "@radix-ui/react-dialog";
import { ChevronLeft, ChevronRight, X } from "lucide-react";
import { useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { Spinner } from "~/components/ui/spinner";
import { enquiryPhotoUrl, THUMB_LONG_SIDE, type EnquiryPhotoSummary } from "~/enquiry-photos/enquiry-photos";
import { cn } from "~/lib/cn";

/** An enquiry's photos: thumbnails; a tap opens a full-screen viewer (buttons, arrow keys, swipe, Escape). */

/** A horizontal move at least this long is a swipe (as on the homepage hero). */
export const PHOTO_SWIPE_PX = 50;

/** The thumbnail's own size: the photo scaled to THUMB_LONG_SIDE on its long side, as the server made it. */
function thumbSize({ width, height }: EnquiryPhotoSummary): { width: number; height: number } {
  const scale = Math.min(1, THUMB_LONG_SIDE / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

const photoLabel = (index: number, count: number, name: string) => `Photo ${index + 1} of ${count} from ${name}`;

const iconButton =
  "inline-flex h-11 w-11 shrink-0 items-center justify-center rounded-full bg-white/15 text-white hover:bg-white/25 " +
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white";

export function EnquiryPhotos({
  submissionId,
  name,
  photos,
}: {
  submissionId: string;
  name: string;
  photos: EnquiryPhotoSummary[];
}) {
  const [index, setIndex] = useState(0);
  const [open, setOpen] = useState(false);
  const thumbnails = useRef<(HTMLButtonElement | null)[]>([]);
  const count = photos.length;
  if (count === 0) return null;

  return (
    <>
      <ul className="flex flex-wrap gap-2" aria-label={`Photos from ${name}`}>
        {photos.map((photo, n) => (
          <li key={photo.n}>
            <button
              type="button"
              ref={(element) => {
                thumbnails.current[n] = element;
              }}
              onClick={() => {
                setIndex(n);
                setOpen(true);
              }}
              aria-haspopup="dialog"
              className="block overflow-hidden rounded-md bg-stone-200 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
            >
              <img
                src={enquiryPhotoUrl(submissionId, photo.n, "thumb")}
                {...thumbSize(photo)}
                alt={photoLabel(n, count, name)}
                loading="lazy"
                decoding="async"
                className="h-24 w-24 object-cover"
              />
            </button>
          </li>
        ))}
      </ul>
      <PhotoViewer
        submissionId={submissionId}
        name={name}
        photos={photos}
        index={index}
        open={open}
        onShow={setIndex}
        onOpenChange={setOpen}
        // Focus goes back to the thumbnail of the photo last seen.
        onClosed={() => thumbnails.current[index]?.focus()}
      />
    </>
  );
}

type ViewerProps = {
  submissionId: string;
  name: string;
  photos: EnquiryPhotoSummary[];
  index: number;
  open: boolean;
  onShow: (index: number) => void;
  onOpenChange: (open: boolean) => void;
  onClosed: () => void;
};

function PhotoViewer({ submissionId, name, photos, index: asked, open, onShow, onOpenChange, onClosed }: ViewerProps) {
  const swipeStart = useRef<{ x: number; y: number; id: number } | null>(null);
  // Which viewing copy has arrived: until then a spinner shows (a phone may take a moment for 300 KB).
  const [loadedUrl, setLoadedUrl] = useState<string | null>(null);
  const count = photos.length;
  // The list may be refreshed with fewer photos while it is open.
  const index = Math.min(asked, count - 1);
  const photo = photos[index]!;
  const viewUrl = enquiryPhotoUrl(submissionId, photo.n, "view");
  // Wraps round: after the last comes the first.
  const step = (by: 1 | -1) => onShow((index + by + count) % count);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "ArrowRight") step(1);
    else if (event.key === "ArrowLeft") step(-1);
    else return;
    event.preventDefault();
  };
  const onPointerDown = (event: PointerEvent) => {
    if (event.isPrimary) swipeStart.current = { x: event.clientX, y: event.clientY, id: event.pointerId };
  };
  const onPointerUp = (event: PointerEvent) => {
    const start = swipeStart.current;
    swipeStart.current = null;
    if (!start || start.id !== event.pointerId) return;
    const dx = event.clientX - start.x;
    // Mostly sideways and long enough; leftwards brings the next photo.
    if (Math.abs(dx) < PHOTO_SWIPE_PX || Math.abs(dx) < Math.abs(event.clientY - start.y)) return;
    step(dx < 0 ? 1 : -1);
  };

  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-stone-950/95" />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          onKeyDown={onKeyDown}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            onClosed();
          }}
          className="fixed inset-0 z-50 flex flex-col text-white focus:outline-none"
        >
          <div className="flex items-center justify-between gap-3 px-3 pt-3">
            <DialogPrimitive.Title className="truncate text-base font-semibold">
              Photos from {name}
            </DialogPrimitive.Title>
            <DialogPrimitive.Close aria-label="Close" className={iconButton}>
              <X aria-hidden="true" className="h-6 w-6" />
            </DialogPrimitive.Close>
          </div>
          <div
            data-testid="photo-stage"
            className="relative flex min-h-0 flex-1 items-center justify-center p-3 select-none"
            // Sideways moves are ours (the swipe); up and down and pinching stay the browser's.
            style={{ touchAction: "pan-y pinch-zoom" }}
            onPointerDown={onPointerDown}
            onPointerUp={onPointerUp}
            onPointerCancel={() => (swipeStart.current = null)}
          >
            {loadedUrl !== viewUrl ? (
              <span data-testid="photo-loading" className="absolute inset-0 flex items-center justify-center">
                <Spinner className="h-8 w-8 text-white/70" />
              </span>
            ) : null}
            <img
              key={photo.n}
              src={viewUrl}
              onLoad={() => setLoadedUrl(viewUrl)}
              width={photo.width}
              height={photo.height}
              alt={photoLabel(index, count, name)}
              draggable={false}
              className="relative h-auto max-h-full w-auto max-w-full object-contain"
            />
          </div>
          <div
            className={cn(
              "flex items-center gap-3 px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))]",
              count > 1 ? "justify-between" : "justify-center",
            )}
          >
            {count > 1 ? (
              <button type="button" aria-label="Previous photo" className={iconButton} onClick={() => step(-1)}>
                <ChevronLeft aria-hidden="true" className="h-6 w-6" />
              </button>
            ) : null}
            <p role="status" className="text-base font-semibold tabular-nums">
              Photo {index + 1} of {count}
            </p>
            {count > 1 ? (
              <button type="button" aria-label="Next photo" className={iconButton} onClick={() => step(1)}>
                <ChevronRight aria-hidden="true" className="h-6 w-6" />
              </button>
            ) : null}
          </div>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}
