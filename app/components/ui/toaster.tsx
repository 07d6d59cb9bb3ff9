import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { cn } from "~/lib/cn";
import { TOAST_TEXT_CLASSES, TOAST_VIEWPORT_CLASSES, toastBoxClasses, toastCloseClasses } from "./toast-styles";
import { TOAST_DURATION_MS, dismissToast, useToasts } from "./use-toast";

/**
 * The notification area (spec §2, §9): stacked closable messages in a default
 * and a destructive style, swipe right past 50 px to close, F8 to focus.
 *
 * Where it sits (decision 0063): on a phone, over the sticky site header at
 * the top of the screen, the one band where no control of any admin view
 * ever lies; the title and description run on as one short paragraph so a
 * toast stays within the header's 65 px. From the md breakpoint, bottom right.
 */
export function Toaster() {
  const toasts = useToasts();
  return (
    <ToastPrimitive.Provider duration={TOAST_DURATION_MS} swipeDirection="right" swipeThreshold={50}>
      {toasts.map((t) => (
        <ToastPrimitive.Root
          key={t.id}
          open={t.open}
          onOpenChange={(open) => {
            if (!open) dismissToast(t.id);
          }}
          // Errors interrupt screen readers; other news waits its turn.
          type={t.variant === "destructive" ? "foreground" : "background"}
          data-variant={t.variant ?? "default"}
          className={cn(
            "group pointer-events-auto flex w-full items-start justify-between gap-3",
            "data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=cancel]:translate-x-0 data-[swipe=cancel]:transition-transform",
            "data-[state=open]:animate-[toast-in_150ms_ease-out] data-[swipe=end]:animate-[toast-out_150ms_ease-in]",
            toastBoxClasses(t.variant),
          )}
        >
          <div className={TOAST_TEXT_CLASSES}>
            <ToastPrimitive.Title className="inline font-semibold md:block">{t.title}</ToastPrimitive.Title>
            {t.description ? (
              <>
                {" "}
                <ToastPrimitive.Description className="inline opacity-95 md:block">
                  {t.description}
                </ToastPrimitive.Description>
              </>
            ) : null}
          </div>
          <ToastPrimitive.Close aria-label="Close notification" className={toastCloseClasses(t.variant)}>
            <X aria-hidden="true" className="h-4 w-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className={TOAST_VIEWPORT_CLASSES} />
    </ToastPrimitive.Provider>
  );
}
