import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeySquare, ShieldCheck, ShieldOff } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import type { SignInMethods } from "~/auth/sign-in-methods";
import { TWO_STEP_LOST_IN_RESTORE } from "~/notifications/two-step-lost";
import { Button } from "~/components/ui/button";
import { DialogClose, DialogDescription, TaskDialog, useTaskDialogState } from "~/components/ui/dialog";
import { TextField } from "~/components/ui/form-field";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { SIGN_IN_METHODS_KEY, confirmWithPasskey, passkeyPromptProblem } from "./passkey-client";
import { serverFieldErrors, serverMessage } from "../query-client";
import { FormProblem } from "../dialog-form-parts";
import { OwnerNotice } from "../owner-notice";
import { RecoveryCodesView } from "./recovery-codes-view";

/** Shown while a restore left two-step unreadable (an unencrypted backup from another installation, decision 0058). */
export function TwoStepRestoreNotice() {
  const methods = useQuery<SignInMethods>({ queryKey: SIGN_IN_METHODS_KEY });
  if (methods.data?.twoStep.status !== "unreadable") return null;
  return (
    <OwnerNotice
      tone="danger"
      title="Two-step verification is off"
      testId="two-step-restore-notice"
      details={
        <p>
          The backup that was restored was not encrypted, so it could not carry the key two-step verification needs; the
          password alone signs in now. Encrypted backups (BACKUP_PASSPHRASE) carry it. Turn it on again under Your
          Account.
        </p>
      }
    >
      {TWO_STEP_LOST_IN_RESTORE}
    </OwnerNotice>
  );
}

export function TwoStepSection({ methods, username }: { methods: SignInMethods; username: string }) {
  const { status, recoveryCodesLeft } = methods.twoStep;
  const canUsePasskey = methods.passkeys.available && methods.passkeys.list.length > 0;
  return (
    <section aria-labelledby="two-step-heading" className="mt-4 border-t border-stone-200 pt-4">
      <h2 id="two-step-heading" className="font-semibold text-stone-900">
        Two-step verification
      </h2>
      {status === "unreadable" ? (
        <p role="note" className="mt-2 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          Two-step verification is off here: this site was restored from a backup made on another installation, whose
          key for it is not here. Please turn it on again.
        </p>
      ) : null}
      {status === "on" ? (
        <>
          <p className="mt-1 text-sm text-stone-700">
            On: signing in with the password also needs a code from your authenticator app. {recoveryCodesLeft} of 10
            recovery codes left.
          </p>
          <ConfirmedChangeDialog kind="renew" username={username} canUsePasskey={canUsePasskey} />
          <ConfirmedChangeDialog kind="off" username={username} canUsePasskey={canUsePasskey} />
        </>
      ) : (
        <>
          {status !== "unreadable" ? (
            <p className="mt-1 text-sm text-stone-700">
              Off: a stolen password alone could sign in. Add a code from an authenticator app.
            </p>
          ) : null}
          <TurnOnDialog username={username} />
        </>
      )}
    </section>
  );
}

/** The codes, once, then Done. */
function RecoveryCodesStep({ codes, description }: { codes: string[]; description: string }) {
  return (
    <>
      <DialogDescription>{description}</DialogDescription>
      <div className="mt-5">
        <RecoveryCodesView codes={codes} />
      </div>
      <DialogClose asChild>
        <Button className="mt-5 w-full">Done</Button>
      </DialogClose>
    </>
  );
}

/** The first field the server named in a 400, with its message. */
function fieldError(error: unknown): { field: string; message: string } | null {
  const [field, message] = Object.entries(serverFieldErrors(error))[0] ?? [];
  return field && message ? { field, message } : null;
}

type Enrolment = { secret: string; qrSvg: string };

function TurnOnDialog({ username }: { username: string }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const dialog = useTaskDialogState((next) => {
    if (!next && codes) void queryClient.invalidateQueries({ queryKey: SIGN_IN_METHODS_KEY });
    setEnrolment(null);
    setCodes(null);
    setErrors({});
    setProblem(null);
  });

  const onError = (error: unknown) => {
    if (isUnauthorizedError(error)) return;
    const field = fieldError(error);
    if (field) setErrors({ [field.field]: field.message });
    else setProblem(serverMessage(error, "Please try again."));
  };
  const setup = useMutation({
    mutationFn: async (currentPassword: string) =>
      (await (await apiRequest("POST", "/api/admin/two-step/setup", { currentPassword })).json()) as Enrolment,
    onSuccess: setEnrolment,
    onError,
  });
  const enable = useMutation({
    mutationFn: async (code: string) =>
      (await (await apiRequest("POST", "/api/admin/two-step/enable", { code })).json()) as { recoveryCodes: string[] },
    onSuccess: (result) => {
      // The card is refreshed when the dialog closes: refreshed now, it would unmount this
      // dialog (the card then shows "on") and the codes, shown only once, would be lost.
      setCodes(result.recoveryCodes);
      toast({ title: "Two-Step Verification On", description: "Signing in now also needs a code from your app." });
    },
    onError,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>;
    setErrors({});
    setProblem(null);
    if (!enrolment) {
      if (!values.currentPassword) return setErrors({ currentPassword: "Enter your current password" });
      setup.mutate(values.currentPassword);
    } else {
      const code = (values.code ?? "").replace(/\s/g, "");
      if (!/^\d{6}$/.test(code)) return setErrors({ code: "Enter the 6-digit code from your app" });
      enable.mutate(code);
    }
  }

  const pending = setup.isPending || enable.isPending;
  return (
    <TaskDialog
      state={dialog}
      pending={pending}
      title="Turn on two-step verification"
      trigger={{ icon: ShieldCheck, className: "mt-3" }}
    >
      {codes ? (
        <RecoveryCodesStep codes={codes} description="It is on. These are your recovery codes." />
      ) : (
        <>
          <DialogDescription>
            {enrolment
              ? "Scan the QR code with an authenticator app (or type the key), then enter the 6-digit code it shows."
              : "First, confirm your current password."}
          </DialogDescription>
          <form noValidate onSubmit={submit} className="mt-5 space-y-4" aria-label="Turn on two-step verification">
            <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
            {enrolment ? (
              <>
                {/* The SVG is drawn on the server by the qrcode library from our own otpauth URL. */}
                <div
                  role="img"
                  aria-label="QR code for your authenticator app"
                  className="mx-auto w-48"
                  dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }}
                />
                <p className="text-sm text-stone-700">
                  Key: <code className="break-all font-mono text-stone-900">{enrolment.secret}</code>
                </p>
                <TextField
                  id={`${id}-code`}
                  label="6-digit code"
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  error={errors.code}
                  disabled={pending}
                />
              </>
            ) : (
              <TextField
                id={`${id}-password`}
                label="Current password"
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                error={errors.currentPassword}
                disabled={pending}
              />
            )}
            <FormProblem problem={problem} />
            <Button type="submit" className="w-full" disabled={pending}>
              {pending ? <Spinner className="h-4 w-4" /> : null}
              {enrolment ? "Turn On" : "Continue"}
            </Button>
          </form>
        </>
      )}
    </TaskDialog>
  );
}

const CHANGES = {
  off: {
    title: "Turn off two-step verification",
    button: "Turn Off",
    url: "/api/admin/two-step/disable",
    icon: ShieldOff,
  },
  renew: {
    title: "New recovery codes",
    button: "Make New Codes",
    url: "/api/admin/two-step/recovery-codes",
    icon: KeySquare,
  },
} as const;

/** Turning two-step off, or new recovery codes: the current password or a passkey first. */
function ConfirmedChangeDialog({
  kind,
  username,
  canUsePasskey,
}: {
  kind: keyof typeof CHANGES;
  username: string;
  canUsePasskey: boolean;
}) {
  const id = useId();
  const change = CHANGES[kind];
  const queryClient = useQueryClient();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [passwordError, setPasswordError] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | null>(null);
  const dialog = useTaskDialogState(() => {
    setCodes(null);
    setPasswordError(undefined);
    setProblem(null);
  });

  const confirm = useMutation({
    mutationFn: async (proof: { currentPassword?: string; usePasskey?: boolean }) => {
      const body = proof.usePasskey
        ? { passkey: await confirmWithPasskey() }
        : { currentPassword: proof.currentPassword };
      return (await (await apiRequest("POST", change.url, body)).json()) as { recoveryCodes?: string[] };
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: SIGN_IN_METHODS_KEY });
      if (result.recoveryCodes) setCodes(result.recoveryCodes);
      else {
        dialog.close();
        toast({ title: "Two-Step Verification Off", description: "The password alone now signs in." });
      }
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      const field = fieldError(error);
      if (field?.field === "currentPassword") setPasswordError(field.message);
      else setProblem(passkeyPromptProblem(error) ?? serverMessage(error, "Please try again."));
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const currentPassword = String(new FormData(event.currentTarget).get("currentPassword") ?? "");
    setPasswordError(undefined);
    setProblem(null);
    if (!currentPassword) return setPasswordError("Enter your current password");
    confirm.mutate({ currentPassword });
  }

  const pending = confirm.isPending;
  return (
    <TaskDialog
      state={dialog}
      pending={pending}
      title={change.title}
      trigger={{ icon: change.icon, className: "mt-3" }}
    >
      {codes ? (
        <RecoveryCodesStep codes={codes} description="The old codes no longer work." />
      ) : (
        <>
          <DialogDescription>
            Confirm it is you: your current password{canUsePasskey ? ", or a passkey" : ""}.
          </DialogDescription>
          <form noValidate onSubmit={submit} className="mt-5 space-y-4" aria-label={change.title}>
            <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
            <TextField
              id={`${id}-password`}
              label="Current password"
              name="currentPassword"
              type="password"
              autoComplete="current-password"
              error={passwordError}
              disabled={pending}
            />
            <FormProblem problem={problem} />
            <div className="flex flex-col gap-2">
              <Button type="submit" variant={kind === "off" ? "destructive" : "primary"} disabled={pending}>
                {pending ? <Spinner className="h-4 w-4" /> : null}
                {change.button}
              </Button>
              {canUsePasskey ? (
                <Button
                  type="button"
                  variant="outline"
                  disabled={pending}
                  onClick={() => confirm.mutate({ usePasskey: true })}
                >
                  Confirm with a passkey instead
                </Button>
              ) : null}
            </div>
          </form>
        </>
      )}
    </TaskDialog>
  );
}
