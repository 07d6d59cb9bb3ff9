import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { cn } from "~/lib/cn";
import { TOAST_DURATION_MS, dismissToast, useToasts } from "./use-toast";

/**
 * The notification area (spec §2, §9): stacked closable messages in a default
 * and a destructive style, swipe right past 50 px to close, F8 to focus.
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
            "group pointer-events-auto relative flex w-full items-start justify-between gap-3 overflow-hidden rounded-lg border p-4 pr-10 shadow-lg",
            "data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=cancel]:translate-x-0 data-[swipe=cancel]:transition-transform",
            "data-[state=open]:animate-[toast-in_150ms_ease-out] data-[swipe=end]:animate-[toast-out_150ms_ease-in]",
            t.variant === "destructive"
              ? "border-red-800 bg-red-700 text-white"
              : "border-stone-200 bg-white text-stone-900",
          )}
        >
          <div className="grid gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{t.title}</ToastPrimitive.Title>
            {t.description ? (
              <ToastPrimitive.Description className="text-sm opacity-95">{t.description}</ToastPrimitive.Description>
            ) : null}
          </div>
          <ToastPrimitive.Close
            aria-label="Close notification"
            className={cn(
              "absolute top-2 right-2 rounded-md p-1.5",
              t.variant === "destructive" ? "text-white hover:bg-red-800" : "text-stone-600 hover:bg-stone-100",
            )}
          >
            <X aria-hidden="true" className="h-4 w-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[100] m-0 flex w-full max-w-[420px] list-none flex-col gap-2 p-4 outline-none sm:top-auto" />
    </ToastPrimitive.Provider>
  );
}
