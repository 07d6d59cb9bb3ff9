import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X, type LucideIcon } from "lucide-react";
import { useState, type ComponentProps, type ComponentPropsWithoutRef, type ReactNode } from "react";
import { cn } from "~/lib/cn";
import { Button } from "./button";

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

type DialogContentProps = ComponentPropsWithoutRef<typeof DialogPrimitive.Content> & {
  /** Whether the corner close button is disabled (e.g. while work is in progress). */
  closeDisabled?: boolean;
  children: ReactNode;
};

/** A modal dialog: full width on phones, a centred card from sm up. */
export function DialogContent({ className, children, closeDisabled, ...props }: DialogContentProps) {
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-stone-950/60" />
      <DialogPrimitive.Content
        className={cn(
          // On a phone, a sheet from the bottom that leaves the top 72 px (the header, where toasts show) clear.
          "fixed inset-x-0 bottom-0 z-50 flex max-h-[calc(100dvh-4.5rem)] flex-col overflow-y-auto rounded-t-2xl bg-white p-5 shadow-xl",
          "sm:inset-auto sm:top-1/2 sm:left-1/2 sm:max-h-[92dvh] sm:w-full sm:max-w-lg sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-xl sm:p-6",
          "focus:outline-none",
          className,
        )}
        {...props}
      >
        {children}
        <DialogPrimitive.Close
          aria-label="Close"
          disabled={closeDisabled}
          className="absolute top-2.5 right-2.5 inline-flex h-11 w-11 items-center justify-center rounded-md text-stone-600 hover:bg-stone-100 disabled:cursor-not-allowed disabled:opacity-50"
        >
          <X aria-hidden="true" className="h-5 w-5" />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogTitle({ className, ...props }: ComponentPropsWithoutRef<typeof DialogPrimitive.Title>) {
  return (
    <DialogPrimitive.Title
      className={cn("pr-12 font-display text-2xl font-bold text-stone-900", className)}
      {...props}
    />
  );
}

export function DialogDescription({
  className,
  ...props
}: ComponentPropsWithoutRef<typeof DialogPrimitive.Description>) {
  return <DialogPrimitive.Description className={cn("mt-1 text-sm text-stone-600", className)} {...props} />;
}

/** Whether a task dialog is open, and what it does when it opens or closes. */
export type TaskDialogState = { open: boolean; onOpenChange: (next: boolean) => void };

/** `onToggle` runs on open and close (a form forgets its problem); `control` lets the parent hold the state. */
export function useTaskDialogState(
  onToggle?: (next: boolean) => void,
  control?: { open: boolean; setOpen: (open: boolean) => void },
): TaskDialogState & { close: () => void } {
  const [ownOpen, setOwnOpen] = useState(false);
  const setOpen = control?.setOpen ?? setOwnOpen;
  return {
    open: control?.open ?? ownOpen,
    onOpenChange(next) {
      onToggle?.(next);
      setOpen(next);
    },
    close: () => setOpen(false),
  };
}

/** The wide button, with its icon, that opens a task dialog in a settings view. */
export function DialogOpenerButton({
  icon: Icon,
  className,
  children,
  ...props
}: ComponentProps<typeof Button> & { icon: LucideIcon }) {
  return (
    <Button variant="outline" className={cn("w-full justify-start text-left", className)} {...props}>
      <Icon aria-hidden="true" className="h-4 w-4" />
      {children}
    </Button>
  );
}

/** While `pending` it stays as it is (no close, corner button disabled) and `state.onOpenChange` is not called. */
export function TaskDialog(props: {
  state: TaskDialogState;
  pending: boolean;
  title: string;
  trigger: ReactNode | { icon: LucideIcon; className?: string };
  onCloseAutoFocus?: DialogContentProps["onCloseAutoFocus"];
  children: ReactNode;
}) {
  const { trigger } = props;
  return (
    <Dialog open={props.state.open} onOpenChange={(next) => !props.pending && props.state.onOpenChange(next)}>
      <DialogTrigger asChild>
        {isOpenerIcon(trigger) ? (
          <DialogOpenerButton icon={trigger.icon} className={trigger.className}>
            {props.title}
          </DialogOpenerButton>
        ) : (
          trigger
        )}
      </DialogTrigger>
      <DialogContent closeDisabled={props.pending} onCloseAutoFocus={props.onCloseAutoFocus}>
        <DialogTitle>{props.title}</DialogTitle>
        {props.children}
      </DialogContent>
    </Dialog>
  );
}

function isOpenerIcon(trigger: unknown): trigger is { icon: LucideIcon; className?: string } {
  return typeof trigger === "object" && trigger !== null && "icon" in trigger;
}
