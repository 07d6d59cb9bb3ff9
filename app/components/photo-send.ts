import { uploadEnquiryPhoto, type PhotoUploadResult } from "./photo-upload";
import { createTimeLeftEstimate } from "./photo-shrink/time-left";

/** Where one chosen photo is on its way: made smaller, sent, then checked by the server. */
export type PhotoSendStage =
  | { state: "preparing" }
  /** `secondsLeft`: null until the upload's rate is known. */
  | { state: "sending"; progress: number; secondsLeft: number | null }
  /** Every byte is up; the server is checking it and making its copies. */
  | { state: "processing" };

// The worker that shrinks photos, and its main-thread side, load when the first photo is chosen.
const loadShrinker = () => import("./photo-shrink/photo-shrink");

/** The browser's smaller copy, or the photo as it is; `onStage` is never called before this returns. */
export function sendPhoto(
  file: File,
  onStage: (stage: PhotoSendStage) => void,
  now: () => number = () => performance.now(),
) {
  let aborted = false;
  let upload: ReturnType<typeof uploadEnquiryPhoto> | null = null;
  const done = (async (): Promise<PhotoUploadResult> => {
    const toSend = await loadShrinker().then(
      ({ shrinkPhoto }) => shrinkPhoto(file),
      () => file,
    );
    if (aborted) return { status: "aborted" };
    onStage({ state: "sending", progress: 0, secondsLeft: null });
    const estimate = createTimeLeftEstimate(now());
    upload = uploadEnquiryPhoto(toSend, (loaded, total) =>
      onStage(
        loaded >= total
          ? { state: "processing" }
          : { state: "sending", progress: loaded / total, secondsLeft: estimate.secondsLeft(loaded, total, now()) },
      ),
    );
    return upload.done;
  })();
  return {
    done,
    abort() {
      aborted = true;
      upload?.abort();
    },
  };
}
