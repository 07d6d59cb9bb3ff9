import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { createContext, useContext, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from "react";
import type { GalleryType } from "~/galleries/gallery";
import { RESUMABLE_UPLOADS_PATH, type ResumableSupport } from "~/uploads/resumable-protocol";
import { browserJsonCall, createXhrPartSender, waitForConnection } from "./part-sender";
import { LeaveConfirmDialog } from "../leave-confirm-dialog";
import { galleryKey } from "../query-client";
import { isLeavingOnPurpose } from "../unsaved-changes";
import {
  uploadImages,
  type FileToUpload,
  type FileUploadState,
  type PartTransport,
  type UploadOutcome,
} from "./upload-images";

/** Decision 0062: one photo at a time (a weak uplink is not split), whether or not the upload window is open. */

/** One photo the tray shows: waiting, under way, or failed (until dismissed or sent again). */
export type TrackedUpload = { id: number; file: File; galleryType: GalleryType; status: FileUploadState };

export const RESUMABLE_SUPPORT_KEY = [RESUMABLE_UPLOADS_PATH] as const;

export const isUnderWay = (upload: TrackedUpload) => upload.status.state !== "failed" && upload.status.state !== "done";

export type UploadBatch = {
  files: FileToUpload[];
  galleryType: GalleryType;
  currentCount: number;
  onProgress?: (fraction: number) => void;
  onFileState?: (index: number, state: FileUploadState) => void;
};

export type BackgroundUploads = {
  /** Sends a batch after those already queued; resolves with its outcome (as uploadImages). */
  send(batch: UploadBatch): Promise<UploadOutcome>;
  /** The photos under way and failed, newest last (a new array on every change). */
  list(): readonly TrackedUpload[];
  subscribe(listener: () => void): () => void;
  dismiss(id: number): void;
  /** Whether any photo is still waiting, being sent or being processed. */
  busy(): boolean;
};

const copies = new WeakMap<File, Promise<File>>();

/** Only a camera JPEG is shrunk: a JPEG copy would lose a PNG's transparency or a GIF's movement. */
export function galleryCopy(file: File): Promise<File> {
  if (file.type !== "image/jpeg") return Promise.resolve(file);
  const copy =
    copies.get(file) ?? import("~/components/photo-shrink/photo-shrink").then((m) => m.shrinkPhoto(file, "gallery"));
  copies.set(file, copy);
  return copy.catch(() => file);
}

export function createBackgroundUploads(options: {
  queryClient: QueryClient;
  transport?: PartTransport;
}): BackgroundUploads {
  const { queryClient } = options;
  const transport = options.transport ?? {
    call: browserJsonCall,
    sendPart: createXhrPartSender(),
    waitToRetry: waitForConnection,
  };
  let uploads: readonly TrackedUpload[] = [];
  const listeners = new Set<() => void>();
  let nextId = 1;
  let lane: Promise<unknown> = Promise.resolve();

  const change = (next: readonly TrackedUpload[]) => {
    uploads = next;
    for (const listener of listeners) listener();
  };
  const update = (id: number, status: FileUploadState) => {
    // Done: it is in its gallery now, and leaves the tray.
    if (status.state === "done") change(uploads.filter((upload) => upload.id !== id));
    else change(uploads.map((upload) => (upload.id === id ? { ...upload, status } : upload)));
  };

  /** Parts where the site takes them, else the spec's single PUT; offline (TypeError), it waits, as parts do. */
  async function partsTransport(whileOffline: () => void): Promise<PartTransport | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        const support = await queryClient.fetchQuery<ResumableSupport>({ queryKey: RESUMABLE_SUPPORT_KEY });
        return support.available ? transport : null;
      } catch (error) {
        if (!(error instanceof TypeError)) return null;
        whileOffline();
        await transport.waitToRetry(attempt);
      }
    }
  }

  return {
    send(batch) {
      const sending = new Set(batch.files.map(({ file }) => file));
      const tracked = batch.files.map(({ file }): TrackedUpload => ({
        id: nextId++,
        file,
        galleryType: batch.galleryType,
        status: { state: "waiting" },
      }));
      // A failed photo sent again replaces its old line.
      change([...uploads.filter((upload) => !sending.has(upload.file)), ...tracked]);
      const onFileState = (index: number, status: FileUploadState) => {
        update(tracked[index]!.id, status);
        if (status.state === "done") void queryClient.invalidateQueries({ queryKey: galleryKey(batch.galleryType) });
        batch.onFileState?.(index, status);
      };
      const run = lane.then(async () =>
        uploadImages({
          files: batch.files,
          galleryType: batch.galleryType,
          currentCount: batch.currentCount,
          parts: await partsTransport(() => onFileState(0, { state: "reconnecting", percent: 0 })),
          prepare: galleryCopy,
          onProgress: batch.onProgress,
          onFileState,
        }),
      );
      lane = run.catch(() => {});
      // Stopped altogether (the session ended): nothing of this batch is under way any more.
      run.catch(() =>
        change(uploads.filter((upload) => !tracked.some((t) => t.id === upload.id) || !isUnderWay(upload))),
      );
      return run;
    },
    list: () => uploads,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dismiss: (id) => change(uploads.filter((upload) => upload.id !== id)),
    busy: () => uploads.some(isUnderWay),
  };
}

const BackgroundUploadsContext = createContext<{
  uploads: BackgroundUploads;
  confirmLeave: (leave: () => void) => void;
} | null>(null);

export const LEAVE_WHILE_UPLOADING_DIALOG = {
  title: "Photos are still uploading",
  description: "If you leave now, the photos that are not up yet will not be added to your galleries.",
  keep: "Keep uploading",
  leave: "Leave anyway",
} as const;

/** While any photo is under way, leaving the page (browser) or the app (confirmLeave, Logout) asks first. */
export function BackgroundUploadsProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [uploads] = useState(() => createBackgroundUploads({ queryClient }));
  const [pendingLeave, setPendingLeave] = useState<(() => void) | null>(null);
  const busy = useSyncExternalStore(uploads.subscribe, uploads.busy, () => false);

  useEffect(() => {
    if (!busy) return;
    const warn = (event: BeforeUnloadEvent) => {
      if (isLeavingOnPurpose()) return;
      event.preventDefault();
      // Browsers that predate preventDefault() here ask when returnValue is set.
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [busy]);

  const value = useMemo(
    () => ({
      uploads,
      confirmLeave: (leave: () => void) => (uploads.busy() ? setPendingLeave(() => leave) : leave()),
    }),
    [uploads],
  );

  return (
    <BackgroundUploadsContext.Provider value={value}>
      {children}
      <LeaveConfirmDialog
        open={pendingLeave !== null}
        texts={LEAVE_WHILE_UPLOADING_DIALOG}
        onKeep={() => setPendingLeave(null)}
        onLeave={() => {
          const leave = pendingLeave;
          setPendingLeave(null);
          leave?.();
        }}
      />
    </BackgroundUploadsContext.Provider>
  );
}

/** The admin app's uploads; a component rendered alone (a test) gets its own. */
export function useBackgroundUploads(): BackgroundUploads {
  const context = useContext(BackgroundUploadsContext);
  const queryClient = useQueryClient();
  const [own] = useState(() => (context ? null : createBackgroundUploads({ queryClient })));
  return context?.uploads ?? own!;
}

/** Runs `leave` at once when no photo is under way; otherwise only once the owner says to leave anyway. */
export function useConfirmLeaveWhileUploading(): (leave: () => void) => void {
  return useContext(BackgroundUploadsContext)?.confirmLeave ?? ((leave) => leave());
}

/** The photos under way and failed, as they change. */
export function useTrackedUploads(): readonly TrackedUpload[] {
  const uploads = useBackgroundUploads();
  return useSyncExternalStore(uploads.subscribe, uploads.list, uploads.list);
}
