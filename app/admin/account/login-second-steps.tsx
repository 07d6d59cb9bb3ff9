import { useMutation, useQuery } from "@tanstack/react-query";
import { FingerprintPattern, ShieldCheck } from "lucide-react";
import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent } from "react";
import { authenticationCodeSchema } from "~/auth/sign-in-methods";
import { Button } from "~/components/ui/button";
import { TextField } from "~/components/ui/form-field";
import { Spinner } from "~/components/ui/spinner";
import { ApiError, apiRequest } from "~/lib/api-client";
import { FormProblem } from "../dialog-form-parts";
import { PASSKEY_EXPLAINED, passkeyPromptProblem, signInWithPasskey, supportsPasskeys } from "./passkey-client";
import { HANDLES_OWN_401, serverMessage } from "../query-client";

const noSubscription = () => () => {};

/** The login page's passkey (button and username autofill) and the two-step second step. */
export function PasskeySignIn({ onSignedIn, disabled }: { onSignedIn: () => void; disabled: boolean }) {
  // Hidden when SITE_URL cannot work with passkeys (the dashboard says why) or the browser has none.
  const methods = useQuery<{ passkeys: boolean }>({ queryKey: ["/api/login/methods"], meta: HANDLES_OWN_401 });
  // False while rendered on the server; the browser's answer once hydrated.
  const supported = useSyncExternalStore(noSubscription, supportsPasskeys, () => false);
  const [problem, setProblem] = useState<string | null>(null);
  const available = supported && methods.data?.passkeys === true;

  // Whether the owner picked a passkey from the username field's suggestions.
  const picked = useRef(false);
  const signIn = useMutation({
    meta: HANDLES_OWN_401,
    mutationFn: (autofill: boolean) => {
      picked.current = false;
      return signInWithPasskey({ autofill, onPicked: () => (picked.current = true) });
    },
    onSuccess: (user) => {
      if (user) onSignedIn();
    },
    onError: (error, autofill) => {
      // The browser's silent offer may end on its own (no passkey for this site, say): the owner did
      // nothing, so there is nothing to report until they pick a passkey or press the button.
      if (autofill && !picked.current) return;
      const prompt = passkeyPromptProblem(error);
      if (error instanceof ApiError) setProblem(serverMessage(error, "The passkey sign-in failed. Please try again."));
      else if (prompt) setProblem(prompt);
    },
  });
  const { mutate } = signIn;

  // Passkey autofill: waits in the background until one is picked in the username field's suggestions.
  useEffect(() => {
    if (available) mutate(true);
  }, [available, mutate]);

  if (!available) return null;
  return (
    <div className="mt-6 border-t border-stone-200 pt-6">
      <Button
        type="button"
        variant="outline"
        size="lg"
        className="w-full"
        disabled={disabled}
        onClick={() => {
          setProblem(null);
          mutate(false);
        }}
      >
        <FingerprintPattern aria-hidden="true" className="h-5 w-5" />
        Sign in with a passkey
      </Button>
      <p className="mt-2 text-sm text-stone-600">{PASSKEY_EXPLAINED}</p>
      <div className="mt-3">
        <FormProblem problem={problem} />
      </div>
    </div>
  );
}

/** The second step: a 6-digit code from the app, or a recovery code. */
export function AuthenticationCodeForm({ onSignedIn, onEnded }: { onSignedIn: () => void; onEnded: () => void }) {
  const [error, setError] = useState<string | undefined>();
  const verify = useMutation({
    meta: HANDLES_OWN_401,
    mutationFn: (code: string) => apiRequest("POST", "/api/login/two-factor", { code }),
    onSuccess: onSignedIn,
    onError: (failure) => {
      const message = serverMessage(failure, "The code could not be checked. Please try again.");
      // The pending step ended (5 minutes, or 5 wrong codes): back to the password.
      if (failure instanceof ApiError && failure.status === 401 && message !== "Invalid authentication code") {
        onEnded();
        return;
      }
      setError(message);
    },
  });

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = authenticationCodeSchema.safeParse(Object.fromEntries(new FormData(event.currentTarget)));
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    verify.mutate(parsed.data.code);
  }

  const pending = verify.isPending || verify.isSuccess;
  return (
    <form noValidate onSubmit={handleSubmit} className="space-y-5" aria-label="Two-step verification">
      <p className="flex gap-2 text-stone-700">
        <ShieldCheck aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-brand-700" />
        Enter the 6-digit code from your authenticator app, or one of your recovery codes.
      </p>
      <TextField
        id="login-code"
        label="Authentication code"
        name="code"
        error={error}
        autoComplete="one-time-code"
        autoCapitalize="none"
        autoCorrect="off"
        spellCheck={false}
        autoFocus
        required
        disabled={pending}
      />
      <Button type="submit" size="lg" disabled={pending} className="w-full">
        {pending ? <Spinner className="h-5 w-5" /> : null}
        {pending ? "Checking..." : "Verify"}
      </Button>
      <Button type="button" variant="ghost" className="w-full" onClick={onEnded} disabled={pending}>
        Back to the password
      </Button>
    </form>
  );
}
