import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Lock } from "lucide-react";
import { useState, type FormEvent, type ReactNode } from "react";
import { loginSchema, type CurrentUser } from "~/auth/login-schema";
import { Button } from "~/components/ui/button";
import { TextField } from "~/components/ui/form-field";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { ApiError, apiRequest } from "~/lib/api-client";
import { cardClasses, ViewHeading } from "../admin-ui";
import { checkedFormValues } from "../form-check";
import { AuthenticationCodeForm, PasskeySignIn } from "./login-second-steps";
import { cancelPasskeyAutofill } from "./passkey-client";
import { AUTH_USER_KEY, HANDLES_OWN_401, hardNavigate, serverMessage } from "../query-client";

export const LOGIN_FAILED = {
  title: "Login Failed",
  description: "Invalid username or password. Please try again.",
} as const;

type Field = "username" | "password";
type FieldErrors = Partial<Record<Field, string>>;

const FIELDS: { name: Field; label: string; type: string; autoComplete: string }[] = [
  // "webauthn": the browser offers this site's passkeys among the username suggestions.
  { name: "username", label: "Username", type: "text", autoComplete: "username webauthn" },
  { name: "password", label: "Password", type: "password", autoComplete: "current-password" },
];
const FIELD_NAMES = FIELDS.map((field) => field.name);

/** Spec §2 Login page: validates in place, signs in, then reloads /admin. */
export function LoginPage({ navigate = hardNavigate }: { navigate?: (url: string) => void }) {
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [redirecting, setRedirecting] = useState(false);
  const [codeStep, setCodeStep] = useState(false);

  const signedIn = () => {
    setRedirecting(true);
    cancelPasskeyAutofill();
    void queryClient.invalidateQueries({ queryKey: AUTH_USER_KEY });
    navigate("/admin");
  };

  const login = useMutation({
    meta: HANDLES_OWN_401,
    mutationFn: async (input: { username: string; password: string }) =>
      (await (await apiRequest("POST", "/api/login", input)).json()) as CurrentUser | { twoFactorRequired: true },
    onSuccess: (result) => {
      // Two-step verification is on: the password was right, the code comes next.
      if ("twoFactorRequired" in result) {
        cancelPasskeyAutofill();
        setCodeStep(true);
        return;
      }
      signedIn();
    },
    onError: (error) => {
      // Too many attempts: the server says how to go on; anything else is the same message.
      const throttled = error instanceof ApiError && error.status === 429;
      toast({
        title: LOGIN_FAILED.title,
        description: throttled ? serverMessage(error, LOGIN_FAILED.description) : LOGIN_FAILED.description,
        variant: "destructive",
      });
    },
  });

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = checkedFormValues(event.currentTarget, loginSchema, FIELD_NAMES, setErrors);
    if (values) login.mutate(values);
  }

  const pending = login.isPending || redirecting;

  if (codeStep) {
    return (
      <LoginCard>
        <AuthenticationCodeForm onSignedIn={signedIn} onEnded={() => setCodeStep(false)} />
      </LoginCard>
    );
  }

  return (
    <LoginCard>
      <form noValidate onSubmit={handleSubmit} className="space-y-5" aria-label="Sign in">
        {FIELDS.map((field) => (
          <TextField
            key={field.name}
            id={`login-${field.name}`}
            label={field.label}
            error={errors[field.name]}
            name={field.name}
            type={field.type}
            autoComplete={field.autoComplete}
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
          />
        ))}
        <Button type="submit" size="lg" disabled={pending} className="w-full">
          {pending ? <Spinner className="h-5 w-5" /> : null}
          {pending ? "Signing In..." : "Sign In"}
        </Button>
      </form>
      <PasskeySignIn onSignedIn={signedIn} disabled={pending} />
    </LoginCard>
  );
}

function LoginCard({ children }: { children: ReactNode }) {
  return (
    <div className="mx-auto flex max-w-md flex-col px-4 py-12 sm:py-20">
      <div className={cardClasses}>
        <div className="mb-6 flex flex-col items-center text-center">
          <span className="mb-4 inline-flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-brand-700">
            <Lock aria-hidden="true" className="h-6 w-6" />
          </span>
          <ViewHeading>Admin Access</ViewHeading>
          <p className="mt-2 text-stone-700">Sign in to manage your website content</p>
        </div>
        {children}
      </div>
    </div>
  );
}
