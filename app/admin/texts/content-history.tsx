import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { History } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogTitle, DialogTrigger } from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest } from "~/lib/api-client";
import { formatSubmittedAt } from "~/lib/format-date";
import { contentKey, failureToast } from "../query-client";
import { LoadFailed } from "../admin-ui";

/** One earlier text, as GET /api/admin/content/:key/history lists it. */
export type ContentVersion = { id: string; content: string; savedAt: string; savedBy: string | null };

export const historyKey = (key: string) => [`/api/admin/content/${key}/history`] as const;

export const VERSION_RESTORED = {
  title: "Version Restored",
  description: "The website now shows the restored text.",
} as const;
export const DEFAULT_RESTORED = {
  title: "Default Restored",
  description: "The website now shows the built-in text.",
} as const;
export const RESTORE_FAILED = { title: "Error", description: "Failed to restore the text. Please try again." } as const;

/** The list shows this many characters of each version. */
export const PREVIEW_LENGTH = 80;

/** The first 80 characters of a text on one line ("…" when cut), counting emoji as one. */
export function previewOf(content: string): string {
  const characters = Array.from(content.replace(/\s+/g, " ").trim());
  return characters.length > PREVIEW_LENGTH
    ? `${characters.slice(0, PREVIEW_LENGTH).join("").trimEnd()}…`
    : characters.join("");
}

type Step = { kind: "list" } | { kind: "restore"; version: ContentVersion } | { kind: "reset" };

export type ContentHistoryProps = {
  sectionKey: string;
  sectionTitle: string;
  /** The built-in text, shown before a reset. */
  defaultContent: string;
  /** Whether the section shows its built-in text now (nothing to reset). */
  isDefault: boolean;
  /** Whether the editor holds unsaved text, which a restore or reset replaces. */
  hasDraft: boolean;
  /** After a restore or reset: the editor drops its draft. */
  onReplaced: () => void;
  disabled?: boolean;
};

/** Earlier versions (decision 0030) with Restore, and Reset to default: both ask first and are new saves (undoable). */
export function ContentHistory(props: ContentHistoryProps) {
  const { sectionTitle, disabled } = props;
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState<Step>({ kind: "list" });

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setStep({ kind: "list" });
      }}
    >
      <DialogTrigger asChild>
        <Button variant="outline" disabled={disabled} className="sm:mr-auto" aria-label={`History of ${sectionTitle}`}>
          <History aria-hidden="true" className="h-4 w-4" />
          History
        </Button>
      </DialogTrigger>
      {/* The step's own title takes focus instead of the first button. */}
      <DialogContent onOpenAutoFocus={(event) => event.preventDefault()}>
        <HistorySteps {...props} step={step} setStep={setStep} close={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function HistorySteps({
  sectionKey,
  sectionTitle,
  defaultContent,
  isDefault,
  hasDraft,
  onReplaced,
  step,
  setStep,
  close,
}: ContentHistoryProps & { step: Step; setStep: (step: Step) => void; close: () => void }) {
  const id = useId();
  const queryClient = useQueryClient();
  const stepRef = useRef<HTMLDivElement>(null);
  // Each step starts at its title, so screen readers hear where they are.
  useEffect(() => {
    stepRef.current?.querySelector<HTMLElement>("[data-step-title]")?.focus({ preventScroll: true });
  }, [step.kind]);

  const versions = useQuery<ContentVersion[]>({ queryKey: historyKey(sectionKey) });

  const replace = useMutation({
    mutationFn: (target: Step) =>
      target.kind === "restore"
        ? apiRequest("POST", `/api/admin/content/${sectionKey}/history/${target.version.id}/restore`)
        : apiRequest("DELETE", `/api/admin/content/${sectionKey}`),
    onSuccess: async (_response, target) => {
      toast({ ...(target.kind === "restore" ? VERSION_RESTORED : DEFAULT_RESTORED) });
      onReplaced();
      close();
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: contentKey(sectionKey) }),
        queryClient.invalidateQueries({ queryKey: historyKey(sectionKey) }),
      ]);
    },
    onError: failureToast(RESTORE_FAILED),
  });

  if (step.kind !== "list") {
    const restoring = step.kind === "restore";
    const text = restoring ? step.version.content : defaultContent;
    return (
      <div ref={stepRef} className="space-y-4">
        <div>
          <DialogTitle data-step-title tabIndex={-1} className="focus:outline-none">
            {restoring ? "Restore this version?" : "Reset to default?"}
          </DialogTitle>
          <DialogDescription className="text-base text-stone-700">
            {restoring
              ? `The website will show this text from ${formatSubmittedAt(step.version.savedAt)} straight away.`
              : "The website will show the built-in text straight away."}{" "}
            The text showing now is kept in the history, so you can undo this.
          </DialogDescription>
        </div>
        {hasDraft ? (
          <p className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-stone-900">
            Your unsaved changes to this section will be replaced.
          </p>
        ) : null}
        <div>
          <p id={`${id}-preview-label`} className="text-sm font-semibold text-stone-800">
            {restoring ? "Text of this version" : "Built-in text"}
          </p>
          <div
            role="region"
            aria-labelledby={`${id}-preview-label`}
            tabIndex={0}
            className="mt-1 max-h-48 overflow-y-auto rounded-md border border-stone-200 bg-stone-50 p-3 text-sm whitespace-pre-wrap text-stone-900"
          >
            {text}
          </div>
        </div>
        <div className="flex flex-col gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" disabled={replace.isPending} onClick={() => setStep({ kind: "list" })}>
            Cancel
          </Button>
          <Button onClick={() => replace.mutate(step)} disabled={replace.isPending}>
            {replace.isPending ? <Spinner className="h-4 w-4" /> : null}
            {replace.isPending
              ? restoring
                ? "Restoring..."
                : "Resetting..."
              : restoring
                ? "Restore"
                : "Reset to default"}
          </Button>
        </div>
      </div>
    );
  }

  return (
    <div ref={stepRef} className="space-y-4">
      <div>
        <DialogTitle data-step-title tabIndex={-1} className="focus:outline-none">
          History
        </DialogTitle>
        <DialogDescription className="text-base text-stone-700">
          Earlier versions of “{sectionTitle}”, newest first.
        </DialogDescription>
      </div>
      {versions.isPending ? (
        <p role="status" className="flex items-center gap-2 text-stone-700">
          <Spinner className="h-4 w-4" /> Loading earlier versions...
        </p>
      ) : versions.isError ? (
        <LoadFailed
          message="The earlier versions could not be loaded."
          onRetry={() => void versions.refetch()}
          retrying={versions.isFetching}
        />
      ) : versions.data.length === 0 ? (
        <p className="rounded-lg bg-stone-50 p-4 text-stone-700">
          No earlier versions yet. Each time you save, the text it replaces is kept here.
        </p>
      ) : (
        <ol aria-label="Earlier versions" className="divide-y divide-stone-200 rounded-lg ring-1 ring-stone-200">
          {versions.data.map((version) => (
            <li
              key={version.id}
              className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between sm:gap-4"
            >
              <div id={`${id}-${version.id}`} className="min-w-0">
                <p className="text-sm font-semibold text-stone-900">{formatSubmittedAt(version.savedAt)}</p>
                <p className="text-sm break-words text-stone-700">{previewOf(version.content)}</p>
              </div>
              <Button
                variant="outline"
                size="sm"
                className="shrink-0"
                aria-describedby={`${id}-${version.id}`}
                onClick={() => setStep({ kind: "restore", version })}
              >
                Restore
              </Button>
            </li>
          ))}
        </ol>
      )}
      <div className="border-t border-stone-200 pt-4">
        <Button
          variant="outline"
          className="w-full sm:w-auto"
          disabled={isDefault}
          onClick={() => setStep({ kind: "reset" })}
        >
          Reset to default
        </Button>
        {isDefault ? (
          <p className="mt-2 text-sm text-stone-600">This section already shows its built-in text.</p>
        ) : null}
      </div>
    </div>
  );
}
