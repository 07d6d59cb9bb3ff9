import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type ChangeEvent } from "react";
import { toast } from "~/components/ui/use-toast";
import type { GalleryType } from "~/galleries/gallery";
import { isUnauthorizedError } from "~/lib/api-client";
import { galleryCopy, useBackgroundUploads } from "./background-uploads";
import { addToSelection } from "./file-selection";
import { GALLERY_TOASTS } from "./gallery-mutations";
import { invalidateGalleries } from "../query-client";
import { describeUploadFailures, type FileUploadState, type UploadOutcome } from "./upload-images";

export type Chosen = {
  key: number;
  file: File;
  /** Object URL of the file for its thumbnail (revoked when the file leaves the list), or null. */
  preview: string | null;
  caption: string;
  status: FileUploadState;
};

/** One upload run: the files it sends, and whether every other listed file is already up. */
type Run = { batch: { key: number; file: File }[]; othersDone: boolean };

/** What the status line says and a screen reader hears when a file's state changes. */
export function describeState(status: FileUploadState, running: boolean): string {
  switch (status.state) {
    case "waiting":
      if (status.reason) return `Waiting: ${status.reason}`;
      return running ? "Waiting" : "";
    case "preparing":
      return "Preparing...";
    case "uploading":
      return `Uploading ${status.percent}%`;
    case "reconnecting":
      return `Waiting for the connection (${status.percent}% sent)`;
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

/** The upload dialog's files (decision 0019); BackgroundUploads sends them (decision 0062), so they outlive it. */
export function useUploadQueue({
  galleryType,
  currentCount,
  onAllUploaded,
}: {
  galleryType: GalleryType;
  currentCount: number;
  onAllUploaded: () => void;
}) {
  const queryClient = useQueryClient();
  const uploads = useBackgroundUploads();
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
      uploads.send({
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
        onAllUploaded();
        reset();
      } else if (outcome.failures.length > 0) {
        toast({
          title: GALLERY_TOASTS.uploadFailed.title,
          description: describeUploadFailures(outcome),
          variant: "destructive",
        });
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

  /** Sends these files (waiting or failed ones: each gets a new upload URL). */
  function send(keys: number[]) {
    const batch = chosen.filter((item) => keys.includes(item.key)).map(({ key, file }) => ({ key, file }));
    if (!batch.length) return;
    const othersDone = chosen.every((item) => keys.includes(item.key) || item.status.state === "done");
    setChosen((current) =>
      current.map((item) => (keys.includes(item.key) ? { ...item, status: { state: "waiting" } } : item)),
    );
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
      // Its copy is made while the owner writes captions, ready for the tap on Upload.
      void galleryCopy(file);
      const preview = objectUrlFor(file);
      if (preview) previews.current.add(preview);
      return { key: nextKey.current++, file, preview, caption: "", status: { state: "waiting" } };
    });
    setChosen((current) => [...current, ...added]);
    setTruncated(cut);
  }

  function setCaption(key: number, caption: string) {
    captions.current.set(key, caption);
    setChosen((current) => current.map((c) => (c.key === key ? { ...c, caption } : c)));
  }

  function remove(item: Chosen) {
    release([item]);
    setChosen((current) => current.filter((c) => c.key !== item.key));
    setTruncated(false);
  }

  return {
    chosen,
    truncated,
    announcement,
    percent: Math.round(progress * 100),
    uploading: upload.isPending,
    onFilesChosen,
    send,
    setCaption,
    remove,
    reset,
  };
}
