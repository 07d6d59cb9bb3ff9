import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FingerprintPattern, Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { PASSKEY_NAME_MAX_LENGTH, type SignInMethods } from "~/auth/sign-in-methods";
import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogTitle, DialogTrigger } from "~/components/ui/dialog";
import { TextField } from "~/components/ui/form-field";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { ApiError, apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { DialogFormActions, FormProblem } from "./dialog-form-parts";
import { formatSubmittedAt } from "./format-date";
import { PASSKEY_EXPLAINED, SIGN_IN_METHODS_KEY, addPasskey, passkeyPromptProblem } from "./passkey-client";
import { TechnicalDetails } from "./owner-notice";
import { failureToast, serverMessage } from "./query-client";

/** Issue 19 item 1: the owner's passkeys, in the Account card. */
export function PasskeysSection({ methods, username }: { methods: SignInMethods; username: string }) {
  const { passkeys } = methods;
  return (
    <section aria-labelledby="passkeys-heading" className="mt-4 border-t border-stone-200 pt-4">
      <h2 id="passkeys-heading" className="font-semibold text-stone-900">
        Passkeys
      </h2>
      {!passkeys.available ? (
        <div role="note" className="mt-2 rounded-md border border-amber-200 bg-amber-50 px-3 pt-3 text-sm text-amber-900">
          <p>Passkeys cannot be used at this website&apos;s address yet. Ask whoever runs your website about it.</p>
          <TechnicalDetails>
            <p>{passkeys.unavailableReason}</p>
          </TechnicalDetails>
        </div>
      ) : (
        <>
          <p className="mt-1 text-sm text-stone-700">{PASSKEY_EXPLAINED}</p>
          {passkeys.list.length ? (
            <ul className="mt-3 divide-y divide-stone-200 rounded-md ring-1 ring-stone-200" aria-label="Your passkeys">
              {passkeys.list.map((passkey) => (
                <li key={passkey.id} className="flex flex-wrap items-center justify-between gap-2 p-3">
                  <div className="min-w-0">
                    <p className="break-words font-medium text-stone-900">{passkey.name}</p>
                    <p className="text-sm text-stone-600">
                      Added {formatSubmittedAt(passkey.createdAt)} · {passkey.lastUsedAt ? `Last used ${formatSubmittedAt(passkey.lastUsedAt)}` : "Not used yet"}
                    </p>
                  </div>
                  <RemovePasskeyButton id={passkey.id} name={passkey.name} />
                </li>
              ))}
            </ul>
          ) : null}
          <AddPasskeyDialog passwordNeeded={methods.passwordNeededToAddPasskey} username={username} />
        </>
      )}
    </section>
  );
}

function AddPasskeyDialog({ passwordNeeded, username }: { passwordNeeded: boolean; username: string }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | undefined>();

  const add = useMutation({
    mutationFn: addPasskey,
    onSuccess: (passkey) => {
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: SIGN_IN_METHODS_KEY });
      toast({ title: "Passkey Added", description: `"${passkey.name}" can now sign in.` });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      if (error instanceof ApiError && error.status === 400) {
        const fields = (JSON.parse(error.responseText || "{}") as { errors?: { currentPassword?: string } }).errors;
        if (fields?.currentPassword) {
          setPasswordError(fields.currentPassword);
          void queryClient.invalidateQueries({ queryKey: SIGN_IN_METHODS_KEY });
          return;
        }
      }
      setProblem(passkeyPromptProblem(error) ?? serverMessage(error, "The passkey could not be added. Please try again."));
    },
  });

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(event.currentTarget)) as { name?: string; currentPassword?: string };
    setProblem(null);
    setPasswordError(undefined);
    if (passwordNeeded && !values.currentPassword) {
      setPasswordError("Enter your current password");
      return;
    }
    add.mutate({ name: values.name?.trim(), currentPassword: values.currentPassword });
  }

  const pending = add.isPending;
  return (
    <Dialog open={open} onOpenChange={(next) => !pending && (setProblem(null), setPasswordError(undefined), setOpen(next))}>
      <DialogTrigger asChild>
        <Button variant="outline" className="mt-3 w-full justify-start text-left">
          <FingerprintPattern aria-hidden="true" className="h-4 w-4" />
          Add a passkey
        </Button>
      </DialogTrigger>
      <DialogContent closeDisabled={pending}>
        <DialogTitle>Add a passkey</DialogTitle>
        <DialogDescription>Your phone or computer will ask for your fingerprint, face or screen lock.</DialogDescription>
        <form noValidate onSubmit={handleSubmit} className="mt-5 space-y-4" aria-label="Add a passkey">
          <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
          {passwordNeeded ? (
            <TextField
              id={`${id}-password`}
              label="Current password"
              hint="You signed in more than 5 minutes ago, so the password is asked first."
              error={passwordError}
              name="currentPassword"
              type="password"
              autoComplete="current-password"
              disabled={pending}
            />
          ) : null}
          <TextField
            id={`${id}-name`}
            label="Name"
            hint="Such as “Mark's iPhone”. Leave it empty to name it after this browser."
            name="name"
            maxLength={PASSKEY_NAME_MAX_LENGTH}
            disabled={pending}
          />
          <FormProblem problem={problem} />
          <DialogFormActions pending={pending} label="Add Passkey" pendingLabel="Adding..." />
        </form>
      </DialogContent>
    </Dialog>
  );
}

function RemovePasskeyButton({ id, name }: { id: string; name: string }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => apiRequest("DELETE", `/api/admin/passkeys/${encodeURIComponent(id)}`),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: SIGN_IN_METHODS_KEY });
      toast({ title: "Passkey Removed", description: `"${name}" can no longer sign in.` });
    },
    onError: failureToast({ title: "Remove Failed", description: "Please try again." }, { fromServer: true }),
  });
  return (
    <Button variant="outline" size="sm" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={`Remove ${name}`}>
      {remove.isPending ? <Spinner className="h-4 w-4" /> : <Trash2 aria-hidden="true" className="h-4 w-4" />}
      Remove
    </Button>
  );
}
