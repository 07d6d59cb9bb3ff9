import { useMutation, useQueryClient } from "@tanstack/react-query";
import { AlertCircle, CheckCircle2, FolderOpen, ImageIcon, RotateCcw, Upload, X } from "lucide-react";
import { useEffect, useId, useRef, useState, type ChangeEvent, type ReactElement } from "react";
import { Button } from "~/components/ui/button";
import { fieldClasses } from "~/components/ui/form-field";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle, DialogTrigger } from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { MAX_CAPTION_LENGTH, MAX_UPLOAD_FILES, type GalleryType } from "~/galleries/gallery";
import { isUnauthorizedError } from "~/lib/api-client";
import { UPLOAD_LIMITS_TEXT, addToSelection, formatKilobytes } from "./file-selection";
import { GALLERY_TOASTS } from "./gallery-mutations";
import { invalidateGalleries } from "./query-client";
import { describeUploadFailures, uploadImages, type FileUploadState, type UploadOutcome } from "./upload-images";

type Chosen = {
  key: number;
  file: File;
  /** Object URL of the file for its thumbnail (revoked when the file leaves the list), or null. */
  preview: string | null;
  caption: string;
  status: FileUploadState;
};

/** One upload run: the files it sends, and whether every other listed file is already up. */
type Run = { batch: { key: number; file: File }[]; othersDone: boolean };

export type UploadDialogProps = {
  /** The button that opens the dialog (focus returns to it on close). */
  trigger: ReactElement;
  galleryType: GalleryType;
  /** How many images the gallery has now (the first upload's sortOrder). */
  currentCount: number;
};

/** What the status line says and a screen reader hears when a file's state changes. */
function describeState(status: FileUploadState, running: boolean): string {
  switch (status.state) {
    case "waiting":
      return running ? "Waiting" : "";
    case "uploading":
      return `Uploading ${status.percent}%`;
    case "processing":
      return "Processing...";
    case "done":
      return "Done";
    case "failed":
      return `Failed: ${status.reason}`;
  }
}

function objectUrlFor(file: File): string | null {
  return typeof URL.createObjectURL === "function" ? URL.createObjectURL(file) : null;
}

/**
 * Spec §2 upload modal, with issue 11's changes (decision 0019): choose (and
 * add more) image files, see each as a thumbnail with its name and size, give
 * each an optional caption, remove any, then upload them all with one
 * progress bar. Each file shows its own state; a file that failed stays
 * listed with its reason and can be retried. The modal closes and resets
 * only when every file is up. Nothing starts until 'Upload N Image(s)'.
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
  const [announcement, setAnnouncement] = useState("");
  // Captions as typed, read when each file is registered (a run reads them after it started).
  const captions = useRef(new Map<number, string>());
  // Every object URL still alive, so none outlives the dialog.
  const previews = useRef(new Set<string>());

  useEffect(() => {
    const alive = previews.current;
    return () => {
      for (const url of alive) URL.revokeObjectURL(url);
      alive.clear();
    };
  }, []);

  const release = (items: Chosen[]) => {
    for (const { key, preview } of items) {
      captions.current.delete(key);
      if (preview) {
        URL.revokeObjectURL(preview);
        previews.current.delete(preview);
      }
    }
  };

  const reset = () => {
    release(chosen);
    setChosen([]);
    setTruncated(false);
    setProgress(0);
    setAnnouncement("");
  };

  const setStatus = (key: number, status: FileUploadState) =>
    setChosen((current) => current.map((item) => (item.key === key ? { ...item, status } : item)));

  const upload = useMutation({
    mutationFn: ({ batch }: Run) =>
      uploadImages({
        files: batch.map(({ key, file }) => ({ file, caption: () => captions.current.get(key) ?? "" })),
        galleryType,
        currentCount,
        onProgress: (fraction) => setProgress(fraction),
        onFileState: (index, status) => {
          const { key, file } = batch[index]!;
          setStatus(key, status);
          // Percent steps are shown, not announced: a screen reader hears each change of state once.
          if (status.state !== "uploading") setAnnouncement(`${file.name}: ${describeState(status, true)}`);
          else if (status.percent === 0) setAnnouncement(`${file.name}: Uploading`);
        },
      }),
    onSuccess: async (outcome: UploadOutcome, { othersDone }: Run) => {
      if (outcome.failures.length === 0 && othersDone) {
        toast({ ...GALLERY_TOASTS.uploaded });
        setOpen(false);
        reset();
      } else if (outcome.failures.length > 0) {
        toast({ title: GALLERY_TOASTS.uploadFailed.title, description: describeUploadFailures(outcome), variant: "destructive" });
        setProgress(0);
      } else {
        setProgress(0);
      }
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

  /** Sends these files (waiting or failed ones: each gets a new upload URL). */
  function send(keys: number[]) {
    const batch = chosen.filter((item) => keys.includes(item.key)).map(({ key, file }) => ({ key, file }));
    if (!batch.length) return;
    const othersDone = chosen.every((item) => keys.includes(item.key) || item.status.state === "done");
    setChosen((current) => current.map((item) => (keys.includes(item.key) ? { ...item, status: { state: "waiting" } } : item)));
    upload.mutate({ batch, othersDone });
  }

  async function onFilesChosen(event: ChangeEvent<HTMLInputElement>) {
    const incoming = Array.from(event.target.files ?? []);
    // Cleared so choosing the same file again still fires a change.
    event.target.value = "";
    if (!incoming.length) return;
    const kept = chosen.map((c) => c.file);
    const { files, truncated: cut } = await addToSelection(kept, incoming, (message) => window.alert(message));
    const added = files.slice(kept.length).map((file): Chosen => {
      const preview = objectUrlFor(file);
      if (preview) previews.current.add(preview);
      return { key: nextKey.current++, file, preview, caption: "", status: { state: "waiting" } };
    });
    setChosen((current) => [...current, ...added]);
    setTruncated(cut);
  }

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
                onCaption={(caption) => {
                  captions.current.set(item.key, caption);
                  setChosen((current) => current.map((c) => (c.key === item.key ? { ...c, caption } : c)));
                }}
                onRetry={() => send([item.key])}
                onRemove={() => {
                  release([item]);
                  setChosen((current) => current.filter((c) => c.key !== item.key));
                  setTruncated(false);
                }}
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

/** One chosen file: thumbnail, name, size, state, caption field, and Retry or Remove. */
function ChosenFile({
  item,
  fieldId,
  running,
  onCaption,
  onRetry,
  onRemove,
}: {
  item: Chosen;
  fieldId: string;
  running: boolean;
  onCaption: (caption: string) => void;
  onRetry: () => void;
  onRemove: () => void;
}) {
  const { file, preview, caption, status } = item;
  const [broken, setBroken] = useState(false);
  const editable = status.state === "waiting" || status.state === "failed";
  const stateText = describeState(status, running);
  return (
    <li className="px-3 py-3" data-state={status.state}>
      <div className="flex items-start gap-3">
        {preview && !broken ? (
          // Decoded off the main thread at 56 px: ten camera photos never block the page.
          <img
            src={preview}
            alt=""
            width={56}
            height={56}
            decoding="async"
            loading="lazy"
            onError={() => setBroken(true)}
            className="h-14 w-14 shrink-0 rounded-md bg-stone-100 object-cover"
          />
        ) : (
          <span className="flex h-14 w-14 shrink-0 items-center justify-center rounded-md bg-stone-100">
            <ImageIcon aria-hidden="true" className="h-6 w-6 text-stone-500" />
          </span>
        )}
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium text-stone-900">{file.name}</p>
          <p className="text-xs text-stone-600">{formatKilobytes(file.size)}</p>
          {stateText ? (
            <p
              className={
                status.state === "failed"
                  ? "mt-1 flex items-start gap-1 text-sm text-red-800"
                  : status.state === "done"
                    ? "mt-1 flex items-center gap-1 text-sm text-green-800"
                    : "mt-1 flex items-center gap-1 text-sm text-stone-700"
              }
            >
              {status.state === "failed" ? <AlertCircle aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" /> : null}
              {status.state === "done" ? <CheckCircle2 aria-hidden="true" className="h-4 w-4 shrink-0" /> : null}
              {status.state === "uploading" || status.state === "processing" ? <Spinner className="h-4 w-4 shrink-0" /> : null}
              <span>{stateText}</span>
            </p>
          ) : null}
          {status.state === "failed" ? (
            <Button variant="outline" size="sm" onClick={onRetry} disabled={running} aria-label={`Retry ${file.name}`} className="mt-2">
              <RotateCcw aria-hidden="true" className="h-4 w-4" />
              Retry
            </Button>
          ) : null}
        </div>
        {editable ? (
          <button
            type="button"
            aria-label={`Remove ${file.name}`}
            disabled={running}
            onClick={onRemove}
            className="inline-flex h-10 w-10 shrink-0 items-center justify-center rounded-md text-stone-600 hover:bg-stone-100 disabled:cursor-not-allowed disabled:opacity-50"
          >
            <X aria-hidden="true" className="h-4 w-4" />
          </button>
        ) : null}
      </div>
      {editable ? (
        <div className="mt-2">
          <label htmlFor={fieldId} className="text-xs font-medium text-stone-700">
            Caption <span className="sr-only">for {file.name} </span>(optional)
          </label>
          <input
            id={fieldId}
            type="text"
            value={caption}
            maxLength={MAX_CAPTION_LENGTH}
            onChange={(event) => onCaption(event.target.value)}
            // Enter closes the on-screen keyboard; there is nothing to submit.
            onKeyDown={(event) => event.key === "Enter" && event.currentTarget.blur()}
            enterKeyHint="done"
            autoComplete="off"
            autoCapitalize="sentences"
            className={fieldClasses()}
          />
        </div>
      ) : caption.trim() ? (
        <p className="mt-2 text-sm text-stone-700">{caption}</p>
      ) : null}
    </li>
  );
}
