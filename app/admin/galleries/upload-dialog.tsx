import { useQuery } from "@tanstack/react-query";
import { FolderOpen, Upload } from "lucide-react";
import { useId, useRef, useState, type ReactElement } from "react";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogTitle,
  DialogTrigger,
} from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";
import { MAX_UPLOAD_FILES, type GalleryType } from "~/galleries/gallery";
import { VARIANT_WIDTHS } from "~/images/image-limits";
import type { ResumableSupport } from "~/uploads/resumable-protocol";
import { RESUMABLE_SUPPORT_KEY } from "./background-uploads";
import { ChosenFile } from "./chosen-file";
import { UPLOAD_LIMITS_TEXT } from "./file-selection";
import { useUploadQueue } from "./use-upload-queue";

/** While photos go up, the window may be closed: they keep going (decision 0062). */
export const BACKGROUND_HINT =
  "You can close this window: the photos keep uploading, and each one appears in the gallery when it is ready.";
export const CONTINUE_IN_BACKGROUND = "Continue in background";
/** The photos that go up are the browser's copies at the site's largest size (the gallery shrink plan). */
export const SENT_SIZE_TEXT = `Photos go up at the largest size the website shows (${Math.max(...VARIANT_WIDTHS).toLocaleString("en-NZ")} pixels wide); your full-size photos stay on your phone.`;
/** Said above the reason when photos go up in one piece. */
export const NO_RESUME_TEXT = "If the connection drops, a photo starts again from the beginning.";

/** Where photos cannot resume after a dropped connection (a bucket whose CORS rule hides ETag), why. */
function NoResumeNotice() {
  const support = useQuery<ResumableSupport>({ queryKey: RESUMABLE_SUPPORT_KEY });
  if (support.data?.available !== false) return null;
  return (
    <p role="note" className="mt-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-stone-800">
      {NO_RESUME_TEXT} {support.data.reason}
    </p>
  );
}

export type UploadDialogProps = {
  /** The button that opens the dialog (focus returns to it on close). */
  trigger: ReactElement;
  galleryType: GalleryType;
  /** How many images the gallery has now (the first upload's sortOrder). */
  currentCount: number;
};

/** Spec §2 upload modal, as decision 0019 changed it; closed meanwhile, uploads go on in the tray (decision 0062). */
export function UploadDialog({ trigger, galleryType, currentCount }: UploadDialogProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const { chosen, truncated, announcement, percent, uploading, onFilesChosen, send, setCaption, remove, reset } =
    useUploadQueue({
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
        // Closed while uploading, the list stays: the photos keep going up, and it shows them again if reopened.
        if (!next && !uploading) reset();
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent className="pb-0 sm:pb-0">
        <DialogTitle>Upload Images</DialogTitle>
        <DialogDescription>{UPLOAD_LIMITS_TEXT}</DialogDescription>
        <p className="mt-1 text-sm text-stone-700">{SENT_SIZE_TEXT}</p>
        <NoResumeNotice />

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
          {uploading ? <p className="mb-3 text-sm text-stone-700">{BACKGROUND_HINT}</p> : null}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <DialogClose asChild>
              <Button variant="outline">{uploading ? CONTINUE_IN_BACKGROUND : "Cancel"}</Button>
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
