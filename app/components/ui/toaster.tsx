import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { cn } from "~/lib/cn";
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
            "group pointer-events-auto relative flex w-full items-start justify-between gap-3 overflow-hidden rounded-lg border py-2 pr-12 pl-3 shadow-lg md:p-4 md:pr-12",
            "data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=cancel]:translate-x-0 data-[swipe=cancel]:transition-transform",
            "data-[state=open]:animate-[toast-in_150ms_ease-out] data-[swipe=end]:animate-[toast-out_150ms_ease-in]",
            t.variant === "destructive"
              ? "border-red-800 bg-red-700 text-white"
              : "border-stone-200 bg-white text-stone-900",
          )}
        >
          {/* One paragraph on a phone ("Content Updated Your changes have…"), two lines from md up. */}
          <div className="min-h-10 text-sm md:grid md:min-h-0 md:gap-1">
            <ToastPrimitive.Title className="inline font-semibold md:block">{t.title}</ToastPrimitive.Title>
            {t.description ? (
              <>
                {" "}
                <ToastPrimitive.Description className="inline opacity-95 md:block">{t.description}</ToastPrimitive.Description>
              </>
            ) : null}
          </div>
          <ToastPrimitive.Close
            aria-label="Close notification"
            className={cn(
              "absolute top-0.5 right-0.5 inline-flex h-11 w-11 items-center justify-center rounded-md",
              t.variant === "destructive" ? "text-white hover:bg-red-800" : "text-stone-600 hover:bg-stone-100",
            )}
          >
            <X aria-hidden="true" className="h-4 w-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="fixed inset-x-0 top-0 z-[100] m-0 flex w-full list-none flex-col gap-2 p-1 outline-none md:top-auto md:bottom-0 md:left-auto md:max-w-[420px] md:p-4" />
    </ToastPrimitive.Provider>
  );
}
