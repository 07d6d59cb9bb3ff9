import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FingerprintPattern, Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { PASSKEY_NAME_MAX_LENGTH, type PasskeyListItem, type SignInMethods } from "~/auth/sign-in-methods";
import { Button } from "~/components/ui/button";
import { DialogDescription, TaskDialog, useTaskDialogState } from "~/components/ui/dialog";
import { TextField } from "~/components/ui/form-field";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { isUnauthorizedError } from "~/lib/api-client";
import { DialogFormActions, FormProblem } from "../dialog-form-parts";
import { formatSubmittedAt } from "~/lib/format-date";
import {
  PASSKEY_EXPLAINED,
  SIGN_IN_METHODS_KEY,
  addPasskey,
  passkeyPromptProblem,
  removePasskey,
  type OwnerProof,
} from "./passkey-client";
import { TechnicalDetails } from "../owner-notice";
import { serverFieldErrors, serverMessage } from "../query-client";

/** "Added … · Last used …" for a passkey. */
export function passkeyUse(passkey: PasskeyListItem): string {
  return `Added ${formatSubmittedAt(passkey.createdAt)} · ${passkey.lastUsedAt ? `Last used ${formatSubmittedAt(passkey.lastUsedAt)}` : "Not used yet"}`;
}

export function PasskeysSection({ methods, username }: { methods: SignInMethods; username: string }) {
  const { passkeys } = methods;
  const canUsePasskey = passkeys.list.length > 0;
  return (
    <section aria-labelledby="passkeys-heading" className="mt-4 border-t border-stone-200 pt-4">
      <h2 id="passkeys-heading" className="font-semibold text-stone-900">
        Passkeys
      </h2>
      {!passkeys.available ? (
        <div
          role="note"
          className="mt-2 rounded-md border border-amber-200 bg-amber-50 px-3 pt-3 text-sm text-amber-900"
        >
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
                    <p className="text-sm text-stone-600">{passkeyUse(passkey)}</p>
                  </div>
                  <RemovePasskeyDialog passkey={passkey} username={username} />
                </li>
              ))}
            </ul>
          ) : null}
          <AddPasskeyDialog username={username} canUsePasskey={canUsePasskey} />
        </>
      )}
    </section>
  );
}

/** The proof form's fields (password, or a passkey when the owner has one), and its problem when refused. */
export function useOwnerProof() {
  const [passwordError, setPasswordError] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | null>(null);
  return {
    passwordError,
    problem,
    reset() {
      setPasswordError(undefined);
      setProblem(null);
    },
    /** The proof from the form, or null (with the field's message) when the password is empty. */
    fromForm(form: HTMLFormElement): OwnerProof | null {
      const currentPassword = String(new FormData(form).get("currentPassword") ?? "");
      setPasswordError(undefined);
      setProblem(null);
      if (!currentPassword) {
        setPasswordError("Enter your current password, or confirm with a passkey");
        return null;
      }
      return { currentPassword };
    },
    /** Shows a refusal: the password's or the passkey's own message, or the server's. */
    onError(error: unknown, fallback: string) {
      if (isUnauthorizedError(error)) return;
      const fields = serverFieldErrors(error);
      if (fields.currentPassword) return setPasswordError(fields.currentPassword);
      setProblem(fields.passkey ?? passkeyPromptProblem(error) ?? serverMessage(error, fallback));
    },
  };
}

/** A passkey dialog: the proof is forgotten as it opens or closes; done, it closes and refreshes sign-in methods. */
function usePasskeyChange<T>(
  send: (ownerProof: OwnerProof) => Promise<T>,
  done: (result: T) => void,
  failed: string,
  onToggle?: () => void,
) {
  const queryClient = useQueryClient();
  const proof = useOwnerProof();
  const dialog = useTaskDialogState(() => {
    proof.reset();
    onToggle?.();
  });
  const task = useMutation({
    mutationFn: send,
    onSuccess: (result) => {
      dialog.close();
      void queryClient.invalidateQueries({ queryKey: SIGN_IN_METHODS_KEY });
      done(result);
    },
    onError: (error) => proof.onError(error, failed),
  });
  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const given = proof.fromForm(event.currentTarget);
    if (given) task.mutate(given);
  }
  return { dialog, proof, task, handleSubmit, pending: task.isPending };
}

/** The current password (with the username, for password managers), and "Confirm with a passkey instead". */
export function OwnerProofFields({
  id,
  username,
  error,
  pending,
}: {
  id: string;
  username: string;
  error?: string;
  pending: boolean;
}) {
  return (
    <>
      <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
      <TextField
        id={`${id}-password`}
        label="Current password"
        error={error}
        name="currentPassword"
        type="password"
        autoComplete="current-password"
        disabled={pending}
      />
    </>
  );
}

export function ConfirmWithPasskeyButton({ pending, onClick }: { pending: boolean; onClick: () => void }) {
  return (
    <Button type="button" variant="outline" className="w-full" disabled={pending} onClick={onClick}>
      <FingerprintPattern aria-hidden="true" className="h-4 w-4" />
      Confirm with a passkey instead
    </Button>
  );
}

function AddPasskeyDialog({ username, canUsePasskey }: { username: string; canUsePasskey: boolean }) {
  const id = useId();
  const [name, setName] = useState("");
  const {
    dialog,
    proof,
    task: add,
    handleSubmit,
    pending,
  } = usePasskeyChange(
    (ownerProof) => addPasskey({ proof: ownerProof, name: name.trim() }),
    (passkey) => toast({ title: "Passkey Added", description: `"${passkey.name}" can now sign in.` }),
    "The passkey could not be added. Please try again.",
    () => setName(""),
  );
  return (
    <TaskDialog
      state={dialog}
      pending={pending}
      title="Add a passkey"
      trigger={{ icon: FingerprintPattern, className: "mt-3" }}
    >
      <DialogDescription>
        First confirm it is you: your current password{canUsePasskey ? ", or a passkey you already have" : ""}. Then
        your phone or computer will ask for your fingerprint, face or screen lock.
      </DialogDescription>
      <form noValidate onSubmit={handleSubmit} className="mt-5 space-y-4" aria-label="Add a passkey">
        <OwnerProofFields id={id} username={username} error={proof.passwordError} pending={pending} />
        <TextField
          id={`${id}-name`}
          label="Name"
          hint="Such as “Mark's iPhone”. Leave it empty to name it after this browser."
          name="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={PASSKEY_NAME_MAX_LENGTH}
          disabled={pending}
        />
        <FormProblem problem={proof.problem} />
        <DialogFormActions pending={pending} label="Add Passkey" pendingLabel="Adding..." />
        {canUsePasskey ? (
          <ConfirmWithPasskeyButton
            pending={pending}
            onClick={() => (proof.reset(), add.mutate({ usePasskey: true }))}
          />
        ) : null}
      </form>
    </TaskDialog>
  );
}

function RemovePasskeyDialog({ passkey, username }: { passkey: PasskeyListItem; username: string }) {
  const id = useId();
  const {
    dialog,
    proof,
    task: remove,
    handleSubmit,
    pending,
  } = usePasskeyChange(
    (ownerProof) => removePasskey({ id: passkey.id, proof: ownerProof }),
    () => toast({ title: "Passkey Removed", description: `"${passkey.name}" can no longer sign in.` }),
    "The passkey could not be removed. Please try again.",
  );
  return (
    <TaskDialog
      state={dialog}
      pending={pending}
      title="Remove this passkey?"
      trigger={
        <Button variant="outline" size="sm" aria-label={`Remove ${passkey.name}`}>
          <Trash2 aria-hidden="true" className="h-4 w-4" />
          Remove
        </Button>
      }
    >
      <DialogDescription>
        &ldquo;{passkey.name}&rdquo; will no longer sign in. Confirm it is you: your current password, or a passkey.
      </DialogDescription>
      <form noValidate onSubmit={handleSubmit} className="mt-5 space-y-4" aria-label="Remove this passkey">
        <OwnerProofFields id={id} username={username} error={proof.passwordError} pending={pending} />
        <FormProblem problem={proof.problem} />
        <div className="flex flex-col gap-2">
          <Button type="submit" variant="destructive" disabled={pending}>
            {pending ? <Spinner className="h-4 w-4" /> : <Trash2 aria-hidden="true" className="h-4 w-4" />}
            Remove Passkey
          </Button>
          <ConfirmWithPasskeyButton
            pending={pending}
            onClick={() => (proof.reset(), remove.mutate({ usePasskey: true }))}
          />
        </div>
      </form>
    </TaskDialog>
  );
}
