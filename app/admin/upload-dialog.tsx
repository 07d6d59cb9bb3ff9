import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FolderOpen, ImageIcon, Upload, X } from "lucide-react";
import { useId, useRef, useState, type ChangeEvent, type ReactElement } from "react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle, DialogTrigger } from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { MAX_UPLOAD_FILES, type GalleryType } from "~/galleries/gallery";
import { isUnauthorizedError } from "~/lib/api-client";
import { UPLOAD_LIMITS_TEXT, addToSelection, formatKilobytes } from "./file-selection";
import { GALLERY_TOASTS } from "./gallery-mutations";
import { invalidateGalleries } from "./query-client";
import { describeUploadFailures, uploadImages, type UploadOutcome } from "./upload-images";

type Chosen = { key: number; file: File };

export type UploadDialogProps = {
  /** The button that opens the dialog (focus returns to it on close). */
  trigger: ReactElement;
  galleryType: GalleryType;
  /** How many images the gallery has now (the first upload's sortOrder). */
  currentCount: number;
};

/**
 * Spec §2 upload modal: choose (and add more) image files, see each with its
 * size, remove any, then upload them all with one progress bar. Nothing
 * starts until 'Upload N Image(s)' is pressed.
 */
export function UploadDialog({ trigger, galleryType, currentCount }: UploadDialogProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);
  const nextKey = useRef(1);
  const [chosen, setChosen] = useState<Chosen[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [progress, setProgress] = useState(0);

  const reset = () => {
    setChosen([]);
    setTruncated(false);
    setProgress(0);
  };

  const upload = useMutation({
    mutationFn: (files: File[]) =>
      uploadImages({ files, galleryType, currentCount, onProgress: (fraction) => setProgress(fraction) }),
    onSuccess: async (outcome: UploadOutcome) => {
      if (outcome.failures.length === 0) {
        toast({ ...GALLERY_TOASTS.uploaded });
      } else {
        toast({ title: GALLERY_TOASTS.uploadFailed.title, description: describeUploadFailures(outcome), variant: "destructive" });
      }
      setOpen(false);
      reset();
      await invalidateGalleries(queryClient);
    },
    onError: async (error) => {
      // A 401 has its own toast and reload (see query-client.ts).
      if (isUnauthorizedError(error)) return;
      toast({ ...GALLERY_TOASTS.uploadFailed, variant: "destructive" });
      setProgress(0);
      await invalidateGalleries(queryClient);
    },
  });
  const uploading = upload.isPending;
  const percent = Math.round(progress * 100);

  function onFilesChosen(event: ChangeEvent<HTMLInputElement>) {
    const incoming = Array.from(event.target.files ?? []);
    // Cleared so choosing the same file again still fires a change.
    event.target.value = "";
    if (!incoming.length) return;
    const kept = chosen.map((c) => c.file);
    const { files, truncated: cut } = addToSelection(kept, incoming, (message) => window.alert(message));
    const added = files.slice(kept.length).map((file) => ({ key: nextKey.current++, file }));
    setChosen([...chosen, ...added]);
    setTruncated(cut);
  }

  const count = chosen.length;

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
          onChange={onFilesChosen}
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

        {count ? (
          <ul aria-label="Chosen files" className="mt-3 max-h-64 divide-y divide-stone-200 overflow-y-auto rounded-md border border-stone-200">
            {chosen.map(({ key, file }) => (
              <li key={key} className="flex items-center gap-3 px-3 py-2">
                <ImageIcon aria-hidden="true" className="h-5 w-5 shrink-0 text-stone-500" />
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium text-stone-900">{file.name}</p>
                  <p className="text-xs text-stone-600">{formatKilobytes(file.size)}</p>
                </div>
                <button
                  type="button"
                  aria-label={`Remove ${file.name}`}
                  disabled={uploading}
                  onClick={() => {
                    setChosen((current) => current.filter((c) => c.key !== key));
                    setTruncated(false);
                  }}
                  className="inline-flex h-10 w-10 shrink-0 items-center justify-center rounded-md text-stone-600 hover:bg-stone-100 disabled:cursor-not-allowed disabled:opacity-50"
                >
                  <X aria-hidden="true" className="h-4 w-4" />
                </button>
              </li>
            ))}
          </ul>
        ) : null}

        {uploading ? (
          <div
            role="progressbar"
            aria-label="Upload progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            className="mt-4 h-2.5 w-full overflow-hidden rounded-full bg-stone-200"
          >
            <div className="h-full rounded-full bg-brand-700 transition-[width]" style={{ width: `${percent}%` }} />
          </div>
        ) : null}

        <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <DialogClose asChild>
            <Button variant="outline" disabled={uploading}>
              Cancel
            </Button>
          </DialogClose>
          {count ? (
            <Button onClick={() => upload.mutate(chosen.map((c) => c.file))} disabled={uploading}>
              {uploading ? <Spinner className="h-4 w-4" /> : <Upload aria-hidden="true" className="h-4 w-4" />}
              {uploading ? `Uploading... ${percent}%` : `Upload ${count} Image(s)`}
            </Button>
          ) : null}
        </div>
      </DialogContent>
    </Dialog>
  );
}
