import { ImagePlus, X } from "lucide-react";
import { useEffect, useRef, useState, useSyncExternalStore, type ChangeEvent } from "react";
import {
  ENQUIRY_PHOTO_FIELD,
  ENQUIRY_PHOTO_TYPES,
  ENQUIRY_PHOTOS_LABEL,
  MAX_ENQUIRY_PHOTO_BYTES,
  MAX_ENQUIRY_PHOTOS,
  TOO_MANY_PHOTOS_MESSAGE,
  unsupportedPhotoMessage,
  photoTooLargeMessage,
} from "~/enquiry-photos/enquiry-photos";
import { sendPhoto, type PhotoSendStage } from "./photo-send";
import { timeLeftInWords } from "./photo-shrink/time-left";
import { buttonClasses } from "./ui/button";

const MAX_MEGABYTES = MAX_ENQUIRY_PHOTO_BYTES / (1024 * 1024);

/** After a no-JS post was refused: the browser cannot keep the chosen files. */
export const CHOOSE_PHOTOS_AGAIN_MESSAGE = "Your message is kept. Please choose the photos again.";

/** Refused in the picker, before any byte is sent: the browser's type and size are enough to tell the visitor early. */
function pickerRefusal(file: File): string | null {
  if (!(ENQUIRY_PHOTO_TYPES as readonly string[]).includes(file.type)) return unsupportedPhotoMessage(file.name);
  if (file.size > MAX_ENQUIRY_PHOTO_BYTES) return photoTooLargeMessage(file.name);
  return null;
}

export type ChosenPhoto = {
  id: number;
  name: string;
  previewUrl: string;
  /** 0..1, while it is being sent. */
  progress: number;
  /** While it is being sent: seconds left, once the upload's rate is known. */
  secondsLeft?: number | null;
  state: PhotoSendStage["state"] | "sent";
  token?: string;
};

/** Photos still on their way (made smaller, sent, or checked): what Send waits for. */
export const isUnderWay = (photo: ChosenPhoto) =>
  photo.state === "preparing" || photo.state === "sending" || photo.state === "processing";

type Upload = { done: Promise<unknown>; abort(): void };

/** Each photo is shrunk and sent as soon as it is chosen (photo-send.ts); `settled()` waits for those under way. */
export function usePhotoUploads(initialNotices: readonly string[] = []) {
  const photosRef = useRef<ChosenPhoto[]>([]);
  const uploads = useRef(new Map<number, Upload>());
  const nextId = useRef(1);
  const [photos, setPhotos] = useState<ChosenPhoto[]>([]);
  const [notices, setNotices] = useState<readonly string[]>(initialNotices);

  const commit = (update: (list: ChosenPhoto[]) => ChosenPhoto[]) => {
    photosRef.current = update(photosRef.current);
    setPhotos(photosRef.current);
  };
  const patch = (id: number, change: Partial<ChosenPhoto>) =>
    commit((list) => list.map((photo) => (photo.id === id ? { ...photo, ...change } : photo)));
  const drop = (id: number) => {
    uploads.current.get(id)?.abort();
    uploads.current.delete(id);
    commit((list) =>
      list.filter((photo) => {
        if (photo.id === id) URL.revokeObjectURL(photo.previewUrl);
        return photo.id !== id;
      }),
    );
  };

  function send(file: File) {
    const id = nextId.current++;
    commit((list) => [
      ...list,
      { id, name: file.name, previewUrl: URL.createObjectURL(file), progress: 0, state: "preparing" },
    ]);
    const upload = sendPhoto(file, (stage) => {
      if (uploads.current.get(id) === upload) patch(id, { progress: 0, secondsLeft: null, ...stage });
    });
    uploads.current.set(id, upload);
    void upload.done.then((result) => {
      if (uploads.current.get(id) !== upload) return; // removed meanwhile
      uploads.current.delete(id);
      if (result.status === "sent") patch(id, { state: "sent", progress: 1, secondsLeft: null, token: result.token });
      else if (result.status === "refused") {
        drop(id);
        setNotices((shown) => [...shown, result.message]);
      }
    });
  }

  function choose(files: readonly File[]) {
    const refusals: string[] = [];
    const fitting = files.filter((file) => {
      const refusal = pickerRefusal(file);
      if (refusal) refusals.push(refusal);
      return !refusal;
    });
    const room = Math.max(0, MAX_ENQUIRY_PHOTOS - photosRef.current.length);
    if (fitting.length > room) refusals.push(TOO_MANY_PHOTOS_MESSAGE);
    setNotices(refusals);
    for (const file of fitting.slice(0, room)) send(file);
  }

  function clear() {
    for (const photo of photosRef.current) drop(photo.id);
    setNotices([]);
  }

  /** Waits for the photos still being sent; the list as it then stands. */
  async function settled(): Promise<ChosenPhoto[]> {
    await Promise.all([...uploads.current.values()].map((upload) => upload.done));
    return photosRef.current;
  }

  // Object URLs hold the photos in memory until revoked.
  useEffect(() => () => photosRef.current.forEach((photo) => URL.revokeObjectURL(photo.previewUrl)), []);

  return { photos, notices, choose, remove: drop, clear, settled };
}

export type PhotoUploads = ReturnType<typeof usePhotoUploads>;

const INPUT_ID = "contact-photos";

const subscribeToNothing = () => () => {};
/** False in the server's HTML and while hydrating, true once the island runs: the picker's own button needs script. */
function useEnhanced(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}

/** What a photo's card says under its name. */
function photoStatus(photo: ChosenPhoto): string {
  switch (photo.state) {
    case "preparing":
      return "Preparing...";
    case "sending":
      return photo.secondsLeft == null ? "Sending..." : timeLeftInWords(photo.secondsLeft);
    case "processing":
      return "Processing...";
    case "sent":
      return "Ready";
  }
}

/** Without JavaScript the browser's file input; with it, "Add photos" opens it, hidden (no "No file chosen"). */
export function PhotoPicker({ uploads, disabled }: { uploads: PhotoUploads; disabled?: boolean }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const enhanced = useEnhanced();
  const { choose } = uploads;

  function takeFiles(input: HTMLInputElement) {
    const files = [...(input.files ?? [])];
    // Emptied, so choosing the same photo again fires a change, and the files leave with their uploads only.
    input.value = "";
    if (files.length) choose(files);
  }

  // Photos chosen before the island hydrated (the form works without it until then).
  useEffect(() => {
    if (inputRef.current?.files?.length) takeFiles(inputRef.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at hydration
  }, []);

  const { photos, notices } = uploads;
  const describedBy = notices.length ? `${INPUT_ID}-hint ${INPUT_ID}-notices` : `${INPUT_ID}-hint`;
  return (
    <div>
      <label id={`${INPUT_ID}-label`} htmlFor={INPUT_ID} className="block text-sm font-semibold text-stone-800">
        {ENQUIRY_PHOTOS_LABEL}
      </label>
      <p id={`${INPUT_ID}-hint`} className="mt-1 text-sm text-stone-700">
        JPEG, PNG, WebP or AVIF, up to {MAX_MEGABYTES} MB each, at most {MAX_ENQUIRY_PHOTOS}.
      </p>
      <input
        ref={inputRef}
        id={INPUT_ID}
        name={ENQUIRY_PHOTO_FIELD}
        type="file"
        accept="image/*"
        multiple
        disabled={disabled}
        hidden={enhanced}
        aria-describedby={describedBy}
        onChange={(event: ChangeEvent<HTMLInputElement>) => takeFiles(event.currentTarget)}
        className="mt-2 block w-full text-base text-stone-800 file:mr-3 file:min-h-11 file:rounded-md file:border-0 file:bg-stone-800 file:px-4 file:py-2.5 file:font-semibold file:text-white"
      />
      {enhanced ? (
        <button
          type="button"
          disabled={disabled}
          aria-describedby={`${INPUT_ID}-label ${describedBy}`}
          onClick={() => inputRef.current?.click()}
          className={buttonClasses("outline", "md", "mt-2")}
        >
          <ImagePlus aria-hidden="true" className="h-5 w-5" />
          Add photos
        </button>
      ) : null}
      {notices.length ? (
        <div id={`${INPUT_ID}-notices`} role="alert" className="mt-2 space-y-1 text-sm font-medium text-red-700">
          {notices.map((notice) => (
            <p key={notice}>{notice}</p>
          ))}
        </div>
      ) : null}
      {photos.length ? (
        <ul aria-label="Chosen photos" className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3">
          {photos.map((photo) => (
            <li key={photo.id} className="relative rounded-md border border-stone-300 p-2">
              <img src={photo.previewUrl} alt="" className="aspect-square w-full rounded object-cover" />
              <p className="mt-1 truncate text-sm text-stone-800">{photo.name}</p>
              {photo.state === "sending" || photo.state === "processing" ? (
                <progress
                  value={photo.state === "processing" ? 1 : photo.progress}
                  max={1}
                  aria-label={`Sending ${photo.name}`}
                  aria-valuetext={photoStatus(photo)}
                  className="mt-1 h-2 w-full"
                />
              ) : null}
              <p className="mt-1 text-xs text-stone-700">{photoStatus(photo)}</p>
              <button
                type="button"
                aria-label={`Remove ${photo.name}`}
                onClick={() => uploads.remove(photo.id)}
                disabled={disabled}
                className="absolute top-3 right-3 rounded-full bg-white/90 p-1.5 text-stone-900 shadow ring-1 ring-stone-300 hover:bg-white"
              >
                <X aria-hidden="true" className="h-5 w-5" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
