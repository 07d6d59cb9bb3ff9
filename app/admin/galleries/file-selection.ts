import { MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES } from "~/galleries/gallery";
import { SNIFF_BYTES, sniffImageType } from "~/images/sniff-image-type";

export const MAX_UPLOAD_MB = Math.round(MAX_UPLOAD_BYTES / (1024 * 1024));

/** Spec §2: 'Maximum N files, up to X MB each'. */
export const UPLOAD_LIMITS_TEXT = `Maximum ${MAX_UPLOAD_FILES} files, up to ${MAX_UPLOAD_MB} MB each`;

export const notAnImageMessage = (name: string) => `File ${name} is not an image`;
export const tooLargeMessage = (name: string) => `File ${name} is too large. Maximum size is ${MAX_UPLOAD_MB}MB`;
/** An image the site cannot take (HEIC from an iPhone, say), judged by its first bytes. */
export const unsupportedImageMessage = (name: string) =>
  `File ${name} is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF.`;

/** The first bytes of a file (Blob.arrayBuffer where there is one, else FileReader: older Safari, jsdom). */
function readHead(file: File): Promise<ArrayBuffer> {
  const head = file.slice(0, SNIFF_BYTES);
  if (typeof head.arrayBuffer === "function") return head.arrayBuffer();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as ArrayBuffer);
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(head);
  });
}

/** Whether the file starts like a JPEG, PNG, WebP, AVIF or GIF (the server's own test); unreadable counts as no. */
async function looksSupported(file: File): Promise<boolean> {
  try {
    return sniffImageType(new Uint8Array(await readHead(file))) !== null;
  } catch {
    return false;
  }
}

/** Spec §5's two alerts come first, word for word; then a file that is no supported format (HEIC, say) is refused. */
export async function addToSelection(
  kept: File[],
  incoming: File[],
  alert: (message: string) => void,
): Promise<{ files: File[]; truncated: boolean }> {
  const accepted: File[] = [];
  for (const file of incoming) {
    if (!file.type.startsWith("image/")) {
      alert(notAnImageMessage(file.name));
    } else if (file.size > MAX_UPLOAD_BYTES) {
      alert(tooLargeMessage(file.name));
    } else if (!(await looksSupported(file))) {
      alert(unsupportedImageMessage(file.name));
    } else {
      accepted.push(file);
    }
  }
  const all = [...kept, ...accepted];
  return { files: all.slice(0, MAX_UPLOAD_FILES), truncated: all.length > MAX_UPLOAD_FILES };
}

export function formatKilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
