import { AlertCircle, CheckCircle2, ImageIcon, RotateCcw, X } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import { fieldClasses } from "~/components/ui/form-field";
import { Spinner } from "~/components/ui/spinner";
import { MAX_CAPTION_LENGTH } from "~/galleries/gallery";
import { formatKilobytes } from "./file-selection";
import { describeState, type Chosen } from "./use-upload-queue";

/** One chosen file: thumbnail, name, size, state, caption field, and Retry or Remove. */
export function ChosenFile({
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
              {status.state === "failed" ? (
                <AlertCircle aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" />
              ) : null}
              {status.state === "done" ? <CheckCircle2 aria-hidden="true" className="h-4 w-4 shrink-0" /> : null}
              {status.state !== "waiting" && status.state !== "failed" && status.state !== "done" ? (
                <Spinner className="h-4 w-4 shrink-0" />
              ) : null}
              <span>{stateText}</span>
            </p>
          ) : null}
          {status.state === "failed" ? (
            <Button
              variant="outline"
              size="sm"
              onClick={onRetry}
              disabled={running}
              aria-label={`Retry ${file.name}`}
              className="mt-2"
            >
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
            className="inline-flex h-11 w-11 shrink-0 items-center justify-center rounded-md text-stone-600 hover:bg-stone-100 disabled:cursor-not-allowed disabled:opacity-50"
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
