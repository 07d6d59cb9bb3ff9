import { useQuery } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import type { Ref } from "react";
import type { SecuritySummary } from "~/auth/security-summary";
import { SECURITY_SUMMARY_KEY } from "../activity/sign-in-activity";

/** While the password is still the first start's generated one (as the database records it), ask to change it. */
export function TemporaryPasswordBanner({
  onChange,
  buttonRef,
}: {
  onChange: () => void;
  buttonRef?: Ref<HTMLButtonElement>;
}) {
  const summary = useQuery<SecuritySummary>({ queryKey: SECURITY_SUMMARY_KEY });
  if (!summary.data?.temporaryPassword) return null;
  return (
    <section
      aria-label="Temporary password"
      className="rounded-xl border-2 border-amber-400 bg-amber-100 px-4 py-2 text-amber-950 sm:p-5"
    >
      <p className="flex items-center gap-2 text-base font-semibold">
        <KeyRound aria-hidden="true" className="h-5 w-5 shrink-0" />
        <span>
          You are using the temporary password.{" "}
          <button
            ref={buttonRef}
            type="button"
            onClick={onChange}
            className="min-h-11 font-bold text-amber-950 underline underline-offset-4 hover:text-amber-800"
          >
            Change it now.
          </button>
        </span>
      </p>
    </section>
  );
}
