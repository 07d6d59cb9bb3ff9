import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "~/components/ui/dialog";

export type LeaveConfirmTexts = { title: string; description: string; keep: string; leave: string };

/** Asks before leaving with something unfinished; "stay" comes first, so it is focused when the dialog opens. */
export function LeaveConfirmDialog({
  open,
  texts,
  onKeep,
  onLeave,
}: {
  open: boolean;
  texts: LeaveConfirmTexts;
  onKeep: () => void;
  onLeave: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={(isOpen) => !isOpen && onKeep()}>
      <DialogContent>
        <DialogTitle>{texts.title}</DialogTitle>
        <DialogDescription className="text-base text-stone-700">{texts.description}</DialogDescription>
        <div className="mt-6 flex flex-col gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onKeep}>
            {texts.keep}
          </Button>
          <Button variant="destructive" onClick={onLeave}>
            {texts.leave}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
