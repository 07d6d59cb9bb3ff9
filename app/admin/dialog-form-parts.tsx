import type { ReactNode } from "react";
import { Button } from "~/components/ui/button";
import { DialogClose } from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";

/** A form's problem that belongs to no one field, announced when it appears. */
export function FormProblem({ problem }: { problem: string | null }) {
  if (!problem) return null;
  return (
    <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
      {problem}
    </p>
  );
}

/** A dialog form's Cancel and submit buttons, stacked on a phone with the action on top. */
export function DialogFormActions({
  pending,
  label,
  pendingLabel = label,
  destructive = false,
  icon = null,
}: {
  pending: boolean;
  label: string;
  pendingLabel?: string;
  /** The action cannot be undone (signing out everywhere): the red button. */
  destructive?: boolean;
  /** Shown before the label while not pending (a spinner takes its place while pending). */
  icon?: ReactNode;
}) {
  return (
    <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
      <DialogClose asChild>
        <Button variant="outline" disabled={pending}>
          Cancel
        </Button>
      </DialogClose>
      <Button type="submit" variant={destructive ? "destructive" : undefined} disabled={pending}>
        {pending ? <Spinner className="h-4 w-4" /> : icon}
        {pending ? pendingLabel : label}
      </Button>
    </div>
  );
}
