import { Router } from "express";
import { deleteUserSessions, sessionIdOf, setAdministratorCredentials } from "~/auth/auth.server";
import { removeOtherPasskeys } from "~/auth/passkeys.server";
import { signOutEverywhereSchema } from "~/auth/sign-in-methods";
import { forgetInitialPassword, usesTemporaryPassword } from "~/auth/initial-admin.server";
import { changePasswordSchema } from "~/auth/password-schema";
import type { SecuritySummary } from "~/auth/security-summary";
import { checkSignIn, readSignInReport } from "~/auth/sign-in.server";
import { queueSecurityNotice } from "~/notifications/security-notices.server";
import type { AppServices } from "~/services.server";
import { badRequest } from "../http-error";
import { clearSessionCookie, readDeviceCookie } from "../middleware/session";
import { signInRefusal } from "./auth-routes";
import { recordRequestActivity } from "./activity-routes";
import { confirmOwner } from "./owner-confirmation";
import { parseJsonBody } from "./validation";

/** The owner's account: this sign-in's failures, the password, signing out everywhere (under requireAdmin). */
export function accountRoutes(services: AppServices): Router {
  const router = Router();
  const { env } = services;

  router.get("/security/summary", async (_req, res) => {
    const summary: SecuritySummary = {
      failedSignInsBeforeThisSession: await readSignInReport(services, sessionIdOf(res.locals.sessionToken!)),
      temporaryPassword: await usesTemporaryPassword(services.db, res.locals.user!.id),
    };
    res.json(summary);
  });

  router.post("/password", async (req, res) => {
    const { currentPassword, newPassword } = parseJsonBody(req, changePasswordSchema);
    const user = res.locals.user!;
    // The current password is checked under the sign-in limits, like any sign-in.
    const outcome = await checkSignIn(services, {
      username: user.username,
      password: currentPassword,
      address: req.ip ?? "unknown",
      deviceCookie: readDeviceCookie(env, req),
    });
    if (outcome.status === "locked" || outcome.status === "busy") {
      await recordRequestActivity(services, req, { kind: "sign-in.locked", outcome: "refused" });
      throw signInRefusal(outcome);
    }
    if (outcome.status === "wrong-password") {
      await recordRequestActivity(services, req, { kind: "account.password-changed", outcome: "failure" });
      const message = "The current password is not right";
      throw badRequest(message, { errors: { currentPassword: message } });
    }
    await setAdministratorCredentials(services, { password: newPassword, keepSessionToken: res.locals.sessionToken });
    await forgetInitialPassword(env.DATA_DIR);
    services.logger.info({ userId: user.id }, "password changed from the dashboard; other sessions signed out");
    await recordRequestActivity(services, req, { kind: "account.password-changed", outcome: "success" });
    await queueSecurityNotice(services, { kind: "password-changed", userAgent: req.get("user-agent") ?? "" });
    res.json({ message: "Password changed. Every other session was signed out." });
  });

  // "Sign out everywhere": every session of the owner ends, this one included. With
  // `removeOtherPasskeys` (and proof, as any passkey removal), every passkey but the one this
  // session signed in with goes too.
  router.delete("/sessions", async (req, res) => {
    const user = res.locals.user!;
    const request = req.is("application/json") ? parseJsonBody(req, signOutEverywhereSchema) : {};
    let removed: string[] = [];
    if (request.removeOtherPasskeys) {
      await confirmOwner(services, req, res, request);
      const session = await services.db
        .selectFrom("sessions")
        .select("passkey_id")
        .where("id", "=", sessionIdOf(res.locals.sessionToken!))
        .executeTakeFirst();
      removed = await removeOtherPasskeys(services, user.id, session?.passkey_id ?? null);
    }
    const ended = await deleteUserSessions(services, user.id);
    clearSessionCookie(env, req, res);
    services.logger.info(
      { userId: user.id, sessions: ended, passkeysRemoved: removed.length },
      "signed out everywhere",
    );
    for (const name of removed)
      await recordRequestActivity(services, req, {
        kind: "passkey.removed",
        outcome: "success",
        detail: { passkey: name },
      });
    await recordRequestActivity(services, req, { kind: "account.signed-out-everywhere", outcome: "success" });
    if (removed.length)
      await queueSecurityNotice(services, {
        kind: "passkey-removed",
        passkeyNames: removed,
        userAgent: req.get("user-agent") ?? "",
      });
    res.status(204).end();
  });

  return router;
}
