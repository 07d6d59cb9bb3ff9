import { useSortable } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { GripVertical, Pencil, Trash2 } from "lucide-react";
import { useId, useState, type CSSProperties, type KeyboardEvent } from "react";
import { ResponsiveImage } from "~/components/responsive-image";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { Tooltip } from "~/components/ui/tooltip";
import { MAX_CAPTION_LENGTH, type GalleryImage } from "~/galleries/gallery";
import { cn } from "~/lib/cn";
import { fieldClasses } from "~/components/ui/form-field";
import { DELETE_CONFIRMATION, useDeleteImage, useUpdateCaption } from "./gallery-mutations";

// Two columns on phones, three from md, four from lg, inside a max-w-6xl container.
const CARD_SIZES = "(min-width: 1152px) 270px, (min-width: 1024px) 23vw, (min-width: 768px) 31vw, 46vw";

// Hidden until hover or focus where a mouse can hover; always shown on touch screens.
const hoverReveal =
  "pointer-fine:opacity-0 pointer-fine:group-hover:opacity-100 pointer-fine:group-focus-within:opacity-100 pointer-fine:focus-visible:opacity-100";

/** One sortable image in the gallery manager (spec §2). */
export function GalleryImageCard({ image, alt }: { image: GalleryImage; alt: string }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging, isOver, active } =
    useSortable({ id: image.id, attributes: { roleDescription: "sortable image" } });
  const deleteImage = useDeleteImage();
  const dropTarget = isOver && active !== null && !isDragging;

  const style: CSSProperties = {
    transform: CSS.Translate.toString(transform),
    transition,
  };

  return (
    <li
      ref={setNodeRef}
      style={style}
      data-image-id={image.id}
      data-drop-target={dropTarget ? "true" : undefined}
      data-dragging={isDragging ? "true" : undefined}
      className={cn(
        "group relative flex flex-col overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-stone-200 transition-shadow",
        dropTarget && "ring-4 ring-brand-600",
        isDragging && "z-10 opacity-80 shadow-xl ring-2 ring-brand-700",
        deleteImage.isPending && "opacity-60",
      )}
    >
      <div className="relative bg-stone-100">
        <ResponsiveImage image={image} alt={alt} sizes={CARD_SIZES} imgClassName="aspect-[4/3] object-cover" />
        <Tooltip label="Drag to reorder">
          <button
            ref={setActivatorNodeRef}
            type="button"
            {...attributes}
            {...listeners}
            aria-label={`Drag to reorder ${alt}`}
            className="absolute top-2 left-2 inline-flex h-11 w-11 cursor-grab touch-none items-center justify-center rounded-md bg-white/90 text-stone-800 shadow ring-1 ring-stone-300 active:cursor-grabbing"
          >
            <GripVertical aria-hidden="true" className="h-5 w-5" />
          </button>
        </Tooltip>
        <Tooltip label="Delete image">
          <button
            type="button"
            aria-label="Delete image"
            disabled={deleteImage.isPending}
            onClick={() => {
              if (window.confirm(DELETE_CONFIRMATION)) deleteImage.mutate(image.id);
            }}
            className={cn(
              "absolute top-2 right-2 inline-flex h-11 w-11 items-center justify-center rounded-md bg-red-700 text-white shadow hover:bg-red-800 disabled:cursor-not-allowed",
              hoverReveal,
            )}
          >
            {deleteImage.isPending ? (
              <Spinner className="h-5 w-5" />
            ) : (
              <Trash2 aria-hidden="true" className="h-5 w-5" />
            )}
          </button>
        </Tooltip>
      </div>
      <CaptionEditor image={image} />
    </li>
  );
}

/** The caption area: a button showing the caption (or 'Click to add caption'); click to edit. */
function CaptionEditor({ image }: { image: GalleryImage }) {
  const id = useId();
  const [draft, setDraft] = useState<string | null>(null);
  const updateCaption = useUpdateCaption();
  const editing = draft !== null;
  const caption = image.caption.trim();

  function save() {
    if (draft === null) return;
    updateCaption.mutate({ id: image.id, caption: draft.trim() }, { onSuccess: () => setDraft(null) });
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Escape") {
      event.preventDefault();
      setDraft(null);
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      save();
    }
  }

  if (!editing) {
    return (
      <button
        type="button"
        onClick={() => setDraft(image.caption)}
        className={cn(
          "flex min-h-11 w-full flex-1 items-start gap-1.5 px-3 py-2.5 text-left text-sm hover:bg-stone-50",
          caption ? "text-stone-800" : "text-stone-600 italic",
        )}
      >
        {caption ? (
          <>
            <span className="sr-only">Edit caption: </span>
            <span className="line-clamp-3 flex-1 break-words">{caption}</span>
            <Pencil aria-hidden="true" className={cn("mt-0.5 h-3.5 w-3.5 shrink-0 text-stone-500", hoverReveal)} />
          </>
        ) : (
          "Click to add caption"
        )}
      </button>
    );
  }

  return (
    <form
      className="space-y-2 p-3"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label htmlFor={`${id}-caption`} className="block text-xs font-semibold text-stone-800">
        Caption
      </label>
      <textarea
        id={`${id}-caption`}
        rows={2}
        autoFocus
        maxLength={MAX_CAPTION_LENGTH}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        className={fieldClasses()}
      />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={updateCaption.isPending} className="flex-1">
          {updateCaption.isPending ? <Spinner className="h-4 w-4" /> : null}
          {updateCaption.isPending ? "Saving..." : "Save"}
        </Button>
        <Button
          variant="outline"
          size="sm"
          disabled={updateCaption.isPending}
          onClick={() => setDraft(null)}
          className="flex-1"
        >
          Cancel
        </Button>
      </div>
    </form>
  );
}
