import { AlertCircle, ChevronDown, ChevronUp, WifiOff, X } from "lucide-react";
import { useId, useState } from "react";
import { Spinner } from "~/components/ui/spinner";
import { GALLERY_TITLES } from "~/galleries/gallery";
import { plural } from "~/lib/plural";
import { isUnderWay, useBackgroundUploads, useTrackedUploads, type TrackedUpload } from "./background-uploads";
import { describeState } from "./use-upload-queue";

/** The tray's heading: how many photos are still going up, or that some failed. */
export function traySummary(uploads: readonly TrackedUpload[]): string {
  const underWay = uploads.filter(isUnderWay).length;
  const failed = uploads.length - underWay;
  if (underWay) return `Uploading ${plural(underWay, "photo", "photos")}`;
  return `${plural(failed, "photo", "photos")} not uploaded`;
}

/** How far one photo is, 0–100, for its bar. */
function percentOf(upload: TrackedUpload): number {
  const { status } = upload;
  if (status.state === "uploading" || status.state === "reconnecting") return status.percent;
  return status.state === "processing" || status.state === "done" ? 100 : 0;
}

/** The tray of photos going up in the background (decision 0062); a failed line stays until dismissed. */
export function UploadTray() {
  const uploads = useTrackedUploads();
  const background = useBackgroundUploads();
  const [folded, setFolded] = useState(false);
  const listId = useId();
  if (!uploads.length) return null;
  const summary = traySummary(uploads);
  return (
    <>
      {/* Room below the page's last line, so the tray never hides it. */}
      <div aria-hidden="true" className="h-24" />
      <section
        aria-label="Photo uploads"
        className="fixed inset-x-2 bottom-2 z-40 rounded-xl border border-stone-200 bg-white shadow-lg sm:inset-x-auto sm:bottom-4 sm:left-4 sm:w-80"
      >
        <button
          type="button"
          aria-expanded={!folded}
          aria-controls={listId}
          onClick={() => setFolded((value) => !value)}
          className="flex min-h-11 w-full items-center justify-between gap-2 rounded-xl px-4 py-2 text-left text-sm font-semibold text-stone-900 hover:bg-stone-50"
        >
          <span aria-live="polite">{summary}</span>
          {folded ? (
            <ChevronUp aria-hidden="true" className="h-4 w-4" />
          ) : (
            <ChevronDown aria-hidden="true" className="h-4 w-4" />
          )}
        </button>
        <ul
          id={listId}
          hidden={folded}
          aria-label="Photos in progress"
          className="max-h-[35vh] divide-y divide-stone-100 overflow-y-auto border-t border-stone-100"
        >
          {uploads.map((upload) => (
            <TrayLine key={upload.id} upload={upload} onDismiss={() => background.dismiss(upload.id)} />
          ))}
        </ul>
      </section>
    </>
  );
}

function TrayLine({ upload, onDismiss }: { upload: TrackedUpload; onDismiss: () => void }) {
  const { status, file } = upload;
  const failed = status.state === "failed";
  const percent = percentOf(upload);
  return (
    <li className="px-4 py-2" data-state={status.state}>
      <div className="flex items-start gap-2">
        <span className="mt-0.5 shrink-0 text-stone-600">
          {failed ? (
            <AlertCircle aria-hidden="true" className="h-4 w-4 text-red-800" />
          ) : status.state === "reconnecting" ? (
            <WifiOff aria-hidden="true" className="h-4 w-4 text-amber-700" />
          ) : (
            <Spinner className="h-4 w-4" />
          )}
        </span>
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium text-stone-900">{file.name}</p>
          <p className="text-xs text-stone-600">{GALLERY_TITLES[upload.galleryType]}</p>
          <p className={failed ? "text-sm text-red-800" : "text-sm text-stone-700"}>{describeState(status, true)}</p>
          {failed ? null : (
            <div
              role="progressbar"
              aria-label={`${file.name} upload progress`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={percent}
              className="mt-1 h-1.5 w-full overflow-hidden rounded-full bg-stone-200"
            >
              <div className="h-full rounded-full bg-brand-700 transition-[width]" style={{ width: `${percent}%` }} />
            </div>
          )}
        </div>
        {failed ? (
          <button
            type="button"
            aria-label={`Dismiss ${file.name}`}
            onClick={onDismiss}
            className="inline-flex h-10 w-10 shrink-0 items-center justify-center rounded-md text-stone-600 hover:bg-stone-100"
          >
            <X aria-hidden="true" className="h-4 w-4" />
          </button>
        ) : null}
      </div>
    </li>
  );
}
