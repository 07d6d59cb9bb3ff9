import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { cn } from "~/lib/cn";
import { TOAST_TEXT_CLASSES, TOAST_VIEWPORT_CLASSES, toastBoxClasses, toastCloseClasses } from "./toast-styles";
import { TOAST_DURATION_MS, dismissToast, useToasts } from "./use-toast";

/**
 * The notification area (spec §2, §9). On a phone (decision 0063) it sits over the sticky header, the one band
 * no admin control lies in; one short paragraph keeps a toast within its 65 px. From md, bottom right.
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
