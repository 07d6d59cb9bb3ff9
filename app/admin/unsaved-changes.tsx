import { createContext, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from "react";
import { LeaveConfirmDialog } from "./leave-confirm-dialog";

/** Unsaved text is never dropped without asking (decision 0033): the shell asks on Back, the browser on unload. */
export type UnsavedChangesGuard = {
  report(editorId: string, unsaved: boolean): void;
  hasUnsaved(): boolean;
  /** Runs `leave` at once when nothing is unsaved; otherwise only once the owner chooses to discard. */
  confirmLeave(leave: () => void): void;
};

const UnsavedChangesContext = createContext<UnsavedChangesGuard | null>(null);

export const DISCARD_DIALOG = {
  title: "Discard unsaved changes?",
  description: "You have changed some text without saving it. If you leave now, those changes will be lost.",
  keep: "Keep editing",
  discard: "Discard changes",
} as const;

// Set when the app itself leaves the page on purpose (the sign-in redirect after a 401), so the browser does not ask.
let leavingOnPurpose = false;

/** Lets the next page unload go ahead without the browser's "Leave site?" question. */
export function leaveWithoutPrompt(): void {
  leavingOnPurpose = true;
}

/** Whether the app is leaving the page on purpose (every other guard of the unload stands aside too). */
export function isLeavingOnPurpose(): boolean {
  return leavingOnPurpose;
}

export function UnsavedChangesProvider({ children }: { children: ReactNode }) {
  const unsaved = useRef(new Set<string>());
  const [pendingLeave, setPendingLeave] = useState<(() => void) | null>(null);
  const guard = useMemo<UnsavedChangesGuard>(
    () => ({
      report(editorId, isUnsaved) {
        if (isUnsaved) unsaved.current.add(editorId);
        else unsaved.current.delete(editorId);
      },
      hasUnsaved: () => unsaved.current.size > 0,
      confirmLeave(leave) {
        if (unsaved.current.size === 0) leave();
        else setPendingLeave(() => leave);
      },
    }),
    [],
  );

  const discard = () => {
    const leave = pendingLeave;
    // The editors are about to go; their drafts no longer hold the owner back.
    unsaved.current.clear();
    setPendingLeave(null);
    leave?.();
  };

  return (
    <UnsavedChangesContext.Provider value={guard}>
      {children}
      <LeaveConfirmDialog
        open={pendingLeave !== null}
        texts={{ ...DISCARD_DIALOG, leave: DISCARD_DIALOG.discard }}
        onKeep={() => setPendingLeave(null)}
        onLeave={discard}
      />
    </UnsavedChangesContext.Provider>
  );
}

/** The guard of the admin area, or null outside it (an editor rendered alone). */
export function useUnsavedChangesGuard(): UnsavedChangesGuard | null {
  return useContext(UnsavedChangesContext);
}

export function useUnsavedDraft(unsaved: boolean): void {
  const guard = useContext(UnsavedChangesContext);
  const editorId = useId();
  useEffect(() => {
    guard?.report(editorId, unsaved);
    return () => guard?.report(editorId, false);
  }, [guard, editorId, unsaved]);

  useEffect(() => {
    if (!unsaved) return;
    const warn = (event: BeforeUnloadEvent) => {
      if (leavingOnPurpose) return;
      event.preventDefault();
      // Browsers that predate preventDefault() here ask when returnValue is set.
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [unsaved]);
}
