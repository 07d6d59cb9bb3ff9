import { ENQUIRY_PHOTO_FIELD } from "~/enquiry-photos/enquiry-photos";

/** What POST /api/enquiry-photos answered for one photo. */
export type PhotoUploadResult =
  | { status: "sent"; token: string }
  /** Refused (too large, not a photo, a bomb, busy, too many): the server's message names the file. */
  | { status: "refused"; message: string }
  | { status: "aborted" };

export function photoNotSentMessage(fileName: string): string {
  return `Photo ${fileName} could not be sent. Please check your connection and choose it again.`;
}

/** XMLHttpRequest rather than fetch: only it reports upload progress. */
export function uploadEnquiryPhoto(
  file: File,
  onProgress: (loaded: number, total: number) => void,
): { done: Promise<PhotoUploadResult>; abort(): void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<PhotoUploadResult>((resolve) => {
    const notSent: PhotoUploadResult = { status: "refused", message: photoNotSentMessage(file.name) };
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded, event.total);
    };
    xhr.onerror = () => resolve(notSent);
    xhr.onabort = () => resolve({ status: "aborted" });
    xhr.onload = () => {
      let body: { token?: unknown; message?: unknown } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // Not JSON (a proxy's error page): said plainly below.
      }
      if (xhr.status === 201 && typeof body.token === "string") resolve({ status: "sent", token: body.token });
      else
        resolve(
          typeof body.message === "string" && body.message ? { status: "refused", message: body.message } : notSent,
        );
    };
  });
  const form = new FormData();
  form.append(ENQUIRY_PHOTO_FIELD, file, file.name);
  xhr.open("POST", "/api/enquiry-photos");
  xhr.send(form);
  return { done, abort: () => xhr.abort() };
}
