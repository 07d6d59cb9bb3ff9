import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, LogOut } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import type { SignInMethods } from "~/auth/sign-in-methods";
import { changePasswordSchema, PASSWORD_MIN_LENGTH, type ChangePasswordInput } from "~/auth/password-schema";
import { DialogDescription, DialogOpenerButton, TaskDialog, useTaskDialogState } from "~/components/ui/dialog";
import { TextField } from "~/components/ui/form-field";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { SettingsView } from "../admin-ui";
import { DialogFormActions, FormProblem } from "../dialog-form-parts";
import { checkedFormValues } from "../form-check";
import { SIGN_IN_METHODS_KEY, proofBody, type OwnerProof } from "./passkey-client";
import {
  ConfirmWithPasskeyButton,
  OwnerProofFields,
  PasskeysSection,
  passkeyUse,
  useOwnerProof,
} from "./passkeys-section";
import { failureToast, serverFieldErrors, serverMessage } from "../query-client";
import { SECURITY_SUMMARY_KEY } from "../activity/sign-in-activity";
import { TwoStepSection } from "./two-step-section";

/** The Account view: change the password (a phone-only owner cannot run `npm run admin:password`), sign out. */
/** Lets the dashboard open Change Password from elsewhere (the temporary-password banner). */
export type PasswordDialogControl = {
  open: boolean;
  setOpen: (open: boolean) => void;
  /** After the dialog closes: focus goes back to whatever opened it. */
  onCloseAutoFocus?: (event: Event) => void;
  onChanged?: () => void;
};

export function AccountCard({
  username,
  navigate,
  passwordDialog,
  onBack,
}: {
  username: string;
  navigate: (url: string) => void;
  passwordDialog?: PasswordDialogControl;
  onBack: () => void;
}) {
  return (
    <SettingsView
      title="Your Account"
      description="Change your password, sign in with a passkey, turn on two-step verification, or sign out everywhere."
      onBack={onBack}
      bodyClassName="grid gap-2"
    >
      <ChangePasswordDialog username={username} control={passwordDialog} />
      <SignOutEverywhereDialog navigate={navigate} username={username} />
      <SignInMethodsPanel username={username} />
    </SettingsView>
  );
}

function SignInMethodsPanel({ username }: { username: string }) {
  const methods = useQuery<SignInMethods>({ queryKey: SIGN_IN_METHODS_KEY });
  if (methods.isPending) return null;
  if (!methods.data) {
    return (
      <p className="mt-4 text-sm text-stone-600">
        Passkeys and two-step verification could not be loaded. Reload the page to try again.
      </p>
    );
  }
  return (
    <div>
      <PasskeysSection methods={methods.data} username={username} />
      <TwoStepSection methods={methods.data} username={username} />
    </div>
  );
}

type Field = keyof ChangePasswordInput;
type FieldErrors = Partial<Record<Field, string>>;

const FIELDS: { name: Field; label: string; autoComplete: string; hint?: string }[] = [
  { name: "currentPassword", label: "Current password", autoComplete: "current-password" },
  {
    name: "newPassword",
    label: "New password",
    autoComplete: "new-password",
    hint: `At least ${PASSWORD_MIN_LENGTH} characters.`,
  },
  { name: "confirmPassword", label: "Repeat the new password", autoComplete: "new-password" },
];
const FIELD_NAMES = FIELDS.map((field) => field.name);

function passwordFieldErrors(error: unknown): FieldErrors {
  return Object.fromEntries(
    Object.entries(serverFieldErrors(error)).filter(([field]) => (FIELD_NAMES as string[]).includes(field)),
  );
}

function ChangePasswordDialog({ username, control }: { username: string; control?: PasswordDialogControl }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const dialog = useTaskDialogState(() => {
    setErrors({});
    setProblem(null);
  }, control);

  const change = useMutation({
    mutationFn: (input: ChangePasswordInput) => apiRequest("POST", "/api/admin/password", input),
    onSuccess: () => {
      control?.onChanged?.();
      dialog.close();
      // The temporary-password banner goes once the server says so.
      void queryClient.invalidateQueries({ queryKey: SECURITY_SUMMARY_KEY });
      toast({ title: "Password Changed", description: "Every other phone and computer was signed out." });
    },
    onError: (error) => {
      // A 401 has its own toast and reload (see query-client.ts).
      if (isUnauthorizedError(error)) return;
      const fieldErrors = passwordFieldErrors(error);
      if (Object.keys(fieldErrors).length) {
        setErrors(fieldErrors);
        return;
      }
      setProblem(serverMessage(error, "The password could not be changed. Please try again."));
    },
  });

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setProblem(null);
    const values = checkedFormValues(event.currentTarget, changePasswordSchema, FIELD_NAMES, setErrors);
    if (values) change.mutate(values);
  }

  const pending = change.isPending;
  return (
    <TaskDialog
      state={dialog}
      pending={pending}
      title="Change Password"
      trigger={{ icon: KeyRound }}
      onCloseAutoFocus={control?.onCloseAutoFocus}
    >
      <DialogDescription>Every other phone and computer signed in to the admin will be signed out.</DialogDescription>
      <form noValidate onSubmit={handleSubmit} className="mt-5 space-y-4" aria-label="Change password">
        {/* Lets password managers file the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
        {FIELDS.map((field) => (
          <TextField
            key={field.name}
            id={`${id}-${field.name}`}
            label={field.label}
            error={errors[field.name]}
            hint={field.hint}
            name={field.name}
            type="password"
            autoComplete={field.autoComplete}
            required
            disabled={pending}
          />
        ))}
        <FormProblem problem={problem} />
        <DialogFormActions pending={pending} label="Change Password" pendingLabel="Changing..." />
      </form>
    </TaskDialog>
  );
}

/** Every session ends, this one too; any other passkey can go (with proof): a stolen session may have added one. */
function SignOutEverywhereDialog({ navigate, username }: { navigate: (url: string) => void; username: string }) {
  const id = useId();
  const [removeOthers, setRemoveOthers] = useState(false);
  const proof = useOwnerProof();
  const dialog = useTaskDialogState(() => {
    proof.reset();
    setRemoveOthers(false);
  });
  const methods = useQuery<SignInMethods>({ queryKey: SIGN_IN_METHODS_KEY, enabled: dialog.open });
  const passkeys = methods.data?.passkeys.list ?? [];
  const keep = passkeys.find((passkey) => passkey.id === methods.data?.passkeys.signedInWith) ?? null;
  const others = passkeys.filter((passkey) => passkey !== keep);

  const signOut = useMutation({
    mutationFn: async (ownerProof: OwnerProof | null) =>
      apiRequest(
        "DELETE",
        "/api/admin/sessions",
        ownerProof ? { removeOtherPasskeys: true, ...(await proofBody(ownerProof)) } : undefined,
      ),
    // This session has ended too: a fresh load of /admin shows the login page.
    onSuccess: () => navigate("/admin"),
    onError: (error, ownerProof) => {
      if (ownerProof) proof.onError(error, "Nothing was signed out or removed. Please try again.");
      else failureToast({ title: "Sign Out Failed", description: "Please try again." })(error);
    },
  });

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!removeOthers || others.length === 0) return signOut.mutate(null);
    const given = proof.fromForm(event.currentTarget);
    if (given) signOut.mutate(given);
  }

  const pending = signOut.isPending || signOut.isSuccess;
  const removing = removeOthers && others.length > 0;
  return (
    <TaskDialog
      state={dialog}
      pending={pending}
      title="Sign out everywhere?"
      trigger={<DialogOpenerButton icon={LogOut}>Sign Out Everywhere</DialogOpenerButton>}
    >
      <DialogDescription>
        Every phone, tablet and computer signed in to the admin, this one included, will need the password again. Use
        this if you lost a phone or signed in on someone else&apos;s computer.
      </DialogDescription>
      <form noValidate onSubmit={handleSubmit} className="mt-5 space-y-4" aria-label="Sign out everywhere">
        {passkeys.length ? (
          <div>
            <p className="text-sm text-stone-700">A passkey signs in without the password. Your passkeys:</p>
            <ul
              className="mt-2 divide-y divide-stone-200 rounded-md text-sm ring-1 ring-stone-200"
              aria-label="Passkeys that can sign in"
            >
              {passkeys.map((passkey) => (
                <li key={passkey.id} className="p-3">
                  <p className="break-words font-medium text-stone-900">
                    {passkey.name}
                    {passkey === keep ? (
                      <span className="font-normal text-stone-600"> (you signed in with this one)</span>
                    ) : null}
                  </p>
                  <p className="text-stone-600">{passkeyUse(passkey)}</p>
                </li>
              ))}
            </ul>
            {others.length ? (
              <label
                htmlFor={`${id}-remove`}
                className="mt-3 flex min-h-11 cursor-pointer items-start gap-2 text-sm font-medium text-stone-900"
              >
                <input
                  id={`${id}-remove`}
                  type="checkbox"
                  className="mt-0.5 h-5 w-5 shrink-0 accent-brand-700"
                  checked={removeOthers}
                  disabled={pending}
                  onChange={(event) => setRemoveOthers(event.target.checked)}
                />
                {keep
                  ? `Also remove the other ${others.length === 1 ? "passkey" : `${others.length} passkeys`} (keeps “${keep.name}”)`
                  : `Also remove ${others.length === 1 ? "this passkey" : `all ${others.length} passkeys`}`}
              </label>
            ) : null}
          </div>
        ) : null}
        {removing ? (
          <OwnerProofFields id={id} username={username} error={proof.passwordError} pending={pending} />
        ) : null}
        <FormProblem problem={proof.problem} />
        <DialogFormActions
          pending={pending}
          label="Sign Out Everywhere"
          destructive
          icon={<LogOut aria-hidden="true" className="h-4 w-4" />}
        />
        {removing ? (
          <ConfirmWithPasskeyButton
            pending={pending}
            onClick={() => (proof.reset(), signOut.mutate({ usePasskey: true }))}
          />
        ) : null}
      </form>
    </TaskDialog>
  );
}
