import { FolderOpen, Upload } from "lucide-react";
import { useId, useRef, useState, type ReactElement } from "react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle, DialogTrigger } from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";
import { MAX_UPLOAD_FILES, type GalleryType } from "~/galleries/gallery";
import { ChosenFile } from "./chosen-file";
import { UPLOAD_LIMITS_TEXT } from "./file-selection";
import { useUploadQueue } from "./use-upload-queue";

export type UploadDialogProps = {
  /** The button that opens the dialog (focus returns to it on close). */
  trigger: ReactElement;
  galleryType: GalleryType;
  /** How many images the gallery has now (the first upload's sortOrder). */
  currentCount: number;
};

/**
 * Spec §2 upload modal, with issue 11's changes (decision 0019): choose (and
 * add more) image files, see each as a thumbnail with its name and size, give
 * each an optional caption, remove any, then upload them all with one
 * progress bar. Each file shows its own state; a file that failed stays
 * listed with its reason and can be retried. The modal closes and resets
 * only when every file is up. Nothing starts until 'Upload N Image(s)'.
 * The files' states live in useUploadQueue; each row is a ChosenFile.
 */
export function UploadDialog({ trigger, galleryType, currentCount }: UploadDialogProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const { chosen, truncated, announcement, percent, uploading, onFilesChosen, send, setCaption, remove, reset } = useUploadQueue({
    galleryType,
    currentCount,
    onAllUploaded: () => setOpen(false),
  });

  const count = chosen.length;
  const pending = chosen.filter((item) => item.status.state !== "done");

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (uploading) return; // Stays open until the upload finishes.
        if (!next) reset();
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent
        closeDisabled={uploading}
        onEscapeKeyDown={(event) => uploading && event.preventDefault()}
        onPointerDownOutside={(event) => uploading && event.preventDefault()}
        onInteractOutside={(event) => uploading && event.preventDefault()}
        className="pb-0 sm:pb-0"
      >
        <DialogTitle>Upload Images</DialogTitle>
        <DialogDescription>{UPLOAD_LIMITS_TEXT}</DialogDescription>

        <input
          ref={inputRef}
          id={`${id}-files`}
          type="file"
          multiple
          accept="image/*"
          className="hidden"
          onChange={(event) => void onFilesChosen(event)}
          data-testid="upload-input"
        />

        <div className="mt-5">
          <Button
            variant="outline"
            onClick={() => inputRef.current?.click()}
            disabled={uploading || count >= MAX_UPLOAD_FILES}
            className="w-full"
          >
            <FolderOpen aria-hidden="true" className="h-5 w-5" />
            {count ? "Add More" : "Choose Files"}
          </Button>
        </div>

        <p aria-live="polite" className="mt-2 text-sm text-stone-700 empty:hidden">
          {truncated ? `Only ${MAX_UPLOAD_FILES} files can be uploaded at once; the rest were left out.` : ""}
        </p>
        <p role="status" className="sr-only">
          {announcement}
        </p>

        {count ? (
          <ul aria-label="Chosen files" className="mt-3 divide-y divide-stone-200 rounded-md border border-stone-200">
            {chosen.map((item) => (
              <ChosenFile
                key={item.key}
                item={item}
                fieldId={`${id}-caption-${item.key}`}
                running={uploading}
                onCaption={(caption) => setCaption(item.key, caption)}
                onRetry={() => send([item.key])}
                onRemove={() => remove(item)}
              />
            ))}
          </ul>
        ) : null}

        {/* Sticky, so Upload stays in reach below a long list on a phone. */}
        <div className="sticky bottom-0 -mx-5 mt-4 border-t border-stone-200 bg-white px-5 pt-3 pb-5 sm:-mx-6 sm:px-6 sm:pb-6">
          {uploading ? (
            <div
              role="progressbar"
              aria-label="Upload progress"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={percent}
              className="mb-3 h-2.5 w-full overflow-hidden rounded-full bg-stone-200"
            >
              <div className="h-full rounded-full bg-brand-700 transition-[width]" style={{ width: `${percent}%` }} />
            </div>
          ) : null}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <DialogClose asChild>
              <Button variant="outline" disabled={uploading}>
                Cancel
              </Button>
            </DialogClose>
            {pending.length ? (
              <Button onClick={() => send(pending.map((item) => item.key))} disabled={uploading}>
                {uploading ? <Spinner className="h-4 w-4" /> : <Upload aria-hidden="true" className="h-4 w-4" />}
                {uploading ? `Uploading... ${percent}%` : `Upload ${pending.length} Image(s)`}
              </Button>
            ) : null}
          </div>
        </div>
      </DialogContent>
    </Dialog>
  );
}
