import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, getJson, isUnauthorizedError } from "~/lib/api-client";
import { fieldClasses } from "~/components/ui/form-field";
import { contentKey } from "./query-client";

export const CONTENT_UPDATED = {
  title: "Content Updated",
  description: "Your changes have been saved successfully.",
} as const;
export const CONTENT_SAVE_FAILED = {
  title: "Error",
  description: "Failed to update content. Please try again.",
} as const;

/** What GET /api/content/:key answers. */
export type ContentEntry = { key: string; content: string; updatedAt: string | null; isDefault: boolean };

export type SectionEditorProps = {
  sectionKey: string;
  /** Shown if the stored text cannot be read (spec §8: a silent fallback). */
  defaultContent?: string;
  /** Makes the editor closable: a Cancel button, and it closes after a save. */
  onClose?: () => void;
  /** Ids of text describing the field (the section's description and location). */
  describedBy?: string;
};

/**
 * One content entry's editor (spec §2): an 8-row Content field prefilled
 * with the current text, Save Changes ('Saving...' while pending) and, only
 * when closable, Cancel.
 */
export function SectionEditor({ sectionKey, defaultContent, onClose, describedBy }: SectionEditorProps) {
  const id = useId();
  const queryClient = useQueryClient();
  const queryKey = contentKey(sectionKey);
  const entry = useQuery({ queryKey, queryFn: () => getJson<ContentEntry>(queryKey[0]) });
  // Untouched (null) shows the stored text; typing keeps a draft until it is saved or cancelled.
  const [draft, setDraft] = useState<string | null>(null);

  const loading = entry.isPending;
  const stored = entry.data?.content ?? (entry.isError ? (defaultContent ?? "") : "");
  const value = draft ?? stored;

  const save = useMutation({
    mutationFn: (content: string) => apiRequest("PUT", `/api/admin/content/${sectionKey}`, { content }),
    onSuccess: async () => {
      toast({ ...CONTENT_UPDATED });
      await queryClient.invalidateQueries({ queryKey });
      setDraft(null);
      onClose?.();
    },
    onError: (error) => {
      // A 401 has its own toast and reload (see query-client.ts).
      if (isUnauthorizedError(error)) return;
      toast({ ...CONTENT_SAVE_FAILED, variant: "destructive" });
    },
  });

  return (
    <form
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(value);
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
          disabled={loading}
          aria-busy={loading || undefined}
          aria-describedby={describedBy}
          onChange={(event) => setDraft(event.target.value)}
          className={fieldClasses()}
        />
      </div>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
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
        <Button type="submit" disabled={save.isPending || loading}>
          {save.isPending ? <Spinner className="h-4 w-4" /> : null}
          {save.isPending ? "Saving..." : "Save Changes"}
        </Button>
      </div>
    </form>
  );
}
