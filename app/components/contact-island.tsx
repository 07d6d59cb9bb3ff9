import { useEffect, useState, type ComponentType } from "react";
import { CONTACT_ISLAND_ID } from "./contact-island-id";
import { ContactForm, type ContactActionResult } from "./contact-form";
import { PlainToasts } from "./ui/plain-toasts";
import { useToasts } from "./ui/use-toast";

/** `contactEmail`: the page's, for the message shown when photos could not be taken. */
export type ContactIslandProps = { serverResult?: ContactActionResult; contactEmail: string };

// Radix Toast (about 12 KB) loads on first use, not with the page (docs/decisions/0055); offline,
// the toasts show without it, and it is asked for again at the next focus or key.
const loadToaster = () => import("./ui/toaster");

function NotificationArea() {
  const [Toaster, setToaster] = useState<ComponentType | null>(null);
  const [unavailable, setUnavailable] = useState(false);
  const due = useToasts().length > 0;
  useEffect(() => {
    if (Toaster) return;
    let cancelled = false;
    const load = () => {
      loadToaster().then(
        (module) => {
          if (!cancelled) setToaster(() => module.Toaster);
        },
        () => {
          if (!cancelled) setUnavailable(true);
        },
      );
    };
    if (due && !unavailable) load();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "F8") load();
    };
    document.addEventListener("focusin", load);
    document.addEventListener("keydown", onKey);
    return () => {
      cancelled = true;
      document.removeEventListener("focusin", load);
      document.removeEventListener("keydown", onKey);
    };
  }, [Toaster, due, unavailable]);
  if (Toaster) return <Toaster />;
  return unavailable ? <PlainToasts /> : null;
}

/** The contact page's one React island (hydrated by app/islands/contact-hydrate.tsx). */
export function ContactIsland({ serverResult, contactEmail }: ContactIslandProps) {
  return (
    <>
      <ContactForm
        key={serverResult?.status === "sent" ? "sent" : "form"}
        serverResult={serverResult}
        contactEmail={contactEmail}
      />
      <NotificationArea />
    </>
  );
}

/** The island's place in the page, with the props the browser hydrates it with. */
export function ContactIslandRoot(props: ContactIslandProps) {
  return (
    <div id={CONTACT_ISLAND_ID} data-props={JSON.stringify(props)}>
      <ContactIsland {...props} />
    </div>
  );
}
