import { useEffect } from "react";
import { TOAST_TEXT_CLASSES, TOAST_VIEWPORT_CLASSES, toastBoxClasses, toastCloseClasses } from "./toast-styles";
import { TOAST_DURATION_MS, dismissToast, useToasts } from "./use-toast";

/** The Toaster's stand-in when Radix cannot load (offline), so "Failed to send message…" still reaches the visitor. */
export function PlainToasts() {
  // The store's own array: a new one only when the toasts change, so a re-render keeps the timers.
  const all = useToasts();
  const toasts = all.filter((t) => t.open);
  useEffect(() => {
    const timers = all.filter((t) => t.open).map((t) => setTimeout(() => dismissToast(t.id), TOAST_DURATION_MS));
    return () => timers.forEach(clearTimeout);
  }, [all]);
  return (
    <section aria-label="Notifications" className={TOAST_VIEWPORT_CLASSES}>
      {toasts.map((t) => (
        // Errors interrupt screen readers; other news waits its turn (as the Toaster's types do).
        <div key={t.id} role={t.variant === "destructive" ? "alert" : "status"} className={toastBoxClasses(t.variant)}>
          <div className={TOAST_TEXT_CLASSES}>
            <span className="inline font-semibold md:block">{t.title}</span>
            {t.description ? <span className="inline opacity-95 md:block"> {t.description}</span> : null}
          </div>
          <button
            type="button"
            aria-label="Close notification"
            onClick={() => dismissToast(t.id)}
            className={toastCloseClasses(t.variant)}
          >
            <span aria-hidden="true" className="text-lg leading-none">
              ×
            </span>
          </button>
        </div>
      ))}
    </section>
  );
}
