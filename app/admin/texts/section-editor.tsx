import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, getJson } from "~/lib/api-client";
import { fieldClasses } from "~/components/ui/form-field";
import { ContentHistory, historyKey } from "./content-history";
import { contentKey, failureToast } from "../query-client";
import { useUnsavedDraft } from "../unsaved-changes";
import { LoadFailed } from "../admin-ui";

export const CONTENT_UPDATED = {
  title: "Content Updated",
  description: "Your changes have been saved successfully.",
} as const;
export const CONTENT_SAVE_FAILED = {
  title: "Error",
  description: "Failed to update content. Please try again.",
} as const;
export const CONTENT_LOAD_FAILED = "The saved text of this section could not be loaded, so it cannot be changed yet.";

/** What GET /api/content/:key answers. */
export type ContentEntry = { key: string; content: string; updatedAt: string | null; isDefault: boolean };

export type SectionEditorProps = {
  sectionKey: string;
  /** The section's name, for its History dialog. */
  sectionTitle?: string;
  /** The built-in text, shown before a reset to default. */
  defaultContent?: string;
  /** Makes the editor closable: a Cancel button, and it closes after a save. */
  onClose?: () => void;
  /** Ids of text describing the field (the section's description and location). */
  describedBy?: string;
};

/** Spec §2. Nothing saves until the stored text loads: a failed load never overwrites real text with the default. */
export function SectionEditor({
  sectionKey,
  sectionTitle = sectionKey,
  defaultContent = "",
  onClose,
  describedBy,
}: SectionEditorProps) {
  const id = useId();
  const queryClient = useQueryClient();
  const queryKey = contentKey(sectionKey);
  const entry = useQuery({ queryKey, queryFn: () => getJson<ContentEntry>(queryKey[0]) });
  // Untouched (null) shows the stored text; typing keeps a draft until it is saved or cancelled.
  const [draft, setDraft] = useState<string | null>(null);

  // Data from an earlier load stays usable when a later refetch fails.
  const loaded = entry.data != null;
  const loadFailed = entry.isError && !loaded;
  const stored = entry.data?.content ?? "";
  const value = draft ?? stored;
  const unsaved = loaded && draft !== null && draft !== stored;
  useUnsavedDraft(unsaved);

  const save = useMutation({
    mutationFn: (content: string) => apiRequest("PUT", `/api/admin/content/${sectionKey}`, { content }),
    onSuccess: async (_response, content) => {
      // Saved from the moment "Content Updated" shows: closing the tab then does not ask.
      queryClient.setQueryData<ContentEntry>(queryKey, (old) => old && { ...old, content });
      setDraft(null);
      toast({ ...CONTENT_UPDATED });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey }),
        // The text this save replaced is now the newest version.
        queryClient.invalidateQueries({ queryKey: historyKey(sectionKey) }),
      ]);
      onClose?.();
    },
    onError: failureToast(CONTENT_SAVE_FAILED),
  });

  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        if (loaded) save.mutate(value);
      }}
    >
      <div>
        <label htmlFor={`${id}-content`} className="block text-sm font-semibold text-stone-800">
          Content
        </label>
        <textarea
          id={`${id}-content`}
          name="content"
          rows={8}
          placeholder="Section content"
          value={value}
          disabled={!loaded}
          aria-busy={entry.isFetching && !loaded ? true : undefined}
          aria-describedby={describedBy}
          onChange={(event) => setDraft(event.target.value)}
          className={fieldClasses()}
        />
      </div>
      {loadFailed ? (
        <LoadFailed message={CONTENT_LOAD_FAILED} onRetry={() => void entry.refetch()} retrying={entry.isFetching} />
      ) : null}
      {/* Save comes first after the field (focus order); on wider screens it sits on the right, History on the left. */}
      <div className="flex flex-col gap-2 sm:flex-row-reverse sm:justify-start">
        <Button type="submit" disabled={save.isPending || !loaded}>
          {save.isPending ? <Spinner className="h-4 w-4" /> : null}
          {save.isPending ? "Saving..." : "Save Changes"}
        </Button>
        {onClose ? (
          <Button
            variant="outline"
            disabled={save.isPending}
            onClick={() => {
              setDraft(null);
              onClose();
            }}
          >
            Cancel
          </Button>
        ) : null}
        <ContentHistory
          sectionKey={sectionKey}
          sectionTitle={sectionTitle}
          defaultContent={defaultContent}
          isDefault={entry.data?.isDefault ?? false}
          hasDraft={unsaved}
          onReplaced={() => setDraft(null)}
          disabled={save.isPending}
        />
      </div>
    </form>
  );
}
