import { useEffect } from "react";
import { cn } from "~/lib/cn";
import { TOAST_DURATION_MS, dismissToast, useToasts } from "./use-toast";

/**
 * The toasts without Radix: what a public page shows when its notification area's script could not
 * come (offline, a dead spot), so that "Failed to send message…" still reaches the visitor. The same
 * texts, place and colours as the Toaster; each closes after the same 5 s or by its button.
 */
export function PlainToasts() {
  // The store's own array: a new one only when the toasts change, so a re-render keeps the timers.
  const all = useToasts();
  const toasts = all.filter((t) => t.open);
  useEffect(() => {
    const timers = all.filter((t) => t.open).map((t) => setTimeout(() => dismissToast(t.id), TOAST_DURATION_MS));
    return () => timers.forEach(clearTimeout);
  }, [all]);
  return (
    <section aria-label="Notifications" className="fixed inset-x-0 top-0 z-[100] flex flex-col gap-2 p-1 md:top-auto md:bottom-0 md:left-auto md:w-full md:max-w-[420px] md:p-4">
      {toasts.map((t) => (
        <div
          key={t.id}
          // Errors interrupt screen readers; other news waits its turn (as the Toaster's types do).
          role={t.variant === "destructive" ? "alert" : "status"}
          className={cn(
            "relative min-h-10 rounded-lg border py-2 pr-12 pl-3 text-sm shadow-lg md:p-4 md:pr-12",
            t.variant === "destructive" ? "border-red-800 bg-red-700 text-white" : "border-stone-200 bg-white text-stone-900",
          )}
        >
          <span className="font-semibold md:block">{t.title}</span>
          {t.description ? <span className="opacity-95 md:block"> {t.description}</span> : null}
          <button
            type="button"
            aria-label="Close notification"
            onClick={() => dismissToast(t.id)}
            className={cn(
              "absolute top-0.5 right-0.5 inline-flex h-11 w-11 items-center justify-center rounded-md text-lg leading-none",
              t.variant === "destructive" ? "text-white hover:bg-red-800" : "text-stone-600 hover:bg-stone-100",
            )}
          >
            <span aria-hidden="true">×</span>
          </button>
        </div>
      ))}
    </section>
  );
}
