import { Router } from "express";
import { claimCeremonyAttempt, endCeremony, readCeremony } from "~/auth/ceremonies.server";
import { authenticationCodeSchema, ownerConfirmationSchema } from "~/auth/sign-in-methods";
import { clearSignInCounts, countSignInAttempt, recordSignInFailure } from "~/auth/sign-in.server";
import {
  beginEnrolment,
  checkSecondStep,
  confirmEnrolment,
  readTwoStepState,
  renewRecoveryCodes,
  turnOffTwoStep,
} from "~/auth/two-step.server";
import { z } from "~/lib/zod";
import { queueSecurityNotice } from "~/notifications/security-notices.server";
import type { AppServices } from "~/services.server";
import { HttpError, badRequest } from "../http-error";
import { readDeviceCookie } from "../middleware/session";
import { recordRequestActivity } from "./activity-routes";
import { completeSignIn, signInRefusal } from "./auth-routes";
import { clearCeremonyCookie, readCeremonyCookie } from "./ceremony-cookies";
import { confirmOwner } from "./owner-confirmation";
import { parseJsonBody } from "./validation";

/** A pending two-step sign-in ends after this many wrong codes. */
const MAX_CODE_ATTEMPTS = 5;
const INVALID_CODE_MESSAGE = "Invalid authentication code";
const SIGN_IN_STEP_ENDED =
  "This sign-in has ended (after 5 minutes, or 5 wrong codes). Please enter your password again.";

/** The second step of a sign-in with two-step verification on. Mounted at /api. */
export function twoStepSignInRoutes(services: AppServices): Router {
  const router = Router();
  const { env } = services;

  router.post("/login/two-factor", async (req, res) => {
    const { code } = parseJsonBody(req, authenticationCodeSchema);
    const found = await readCeremony(services, "two-step-sign-in", readCeremonyCookie(env, req, "two-step-sign-in"), {
      take: false,
    });
    const user =
      found.status === "found" && found.ceremony.userId
        ? await services.db
            .selectFrom("users")
            .select(["id", "username"])
            .where("id", "=", found.ceremony.userId)
            .executeTakeFirst()
        : undefined;
    if (found.status !== "found" || !user) {
      clearCeremonyCookie(env, req, res, "two-step-sign-in");
      throw new HttpError(401, SIGN_IN_STEP_ENDED);
    }
    const { ceremony } = found;
    const address = req.ip ?? "unknown";
    const browser = { username: user.username, address, deviceCookie: readDeviceCookie(env, req) };
    // A code is counted against the password limits before it is checked, as a password is:
    // while the lock-out holds, no code is checked at all.
    const counted = await countSignInAttempt(services, browser);
    if ("locked" in counted) {
      await recordRequestActivity(services, req, { kind: "sign-in.locked", outcome: "refused" });
      throw signInRefusal({ status: "locked", retryAfterSeconds: counted.retryAfterSeconds });
    }
    // At most 5 codes per pending step, admitted atomically before any is checked.
    const attempt = await claimCeremonyAttempt(services, ceremony, MAX_CODE_ATTEMPTS);
    if (attempt === null) {
      await endCeremony(services, ceremony);
      clearCeremonyCookie(env, req, res, "two-step-sign-in");
      throw new HttpError(401, SIGN_IN_STEP_ENDED);
    }
    const method = await checkSecondStep(services, user.id, code);
    if (!method) {
      await recordSignInFailure(services, address);
      if (attempt >= MAX_CODE_ATTEMPTS) {
        await endCeremony(services, ceremony);
        clearCeremonyCookie(env, req, res, "two-step-sign-in");
      }
      await recordRequestActivity(services, req, { kind: "sign-in.two-step", outcome: "failure" });
      throw new HttpError(401, INVALID_CODE_MESSAGE);
    }
    await endCeremony(services, ceremony);
    clearCeremonyCookie(env, req, res, "two-step-sign-in");
    await clearSignInCounts(counted);
    if (method === "recovery-code") {
      await queueSecurityNotice(services, { kind: "recovery-code-used", userAgent: req.get("user-agent") ?? "" });
    }
    await completeSignIn(services, req, res, { user, device: counted.device, activity: { kind: "sign-in.two-step" } });
  });

  return router;
}

const enrolmentCodeSchema = z.object({
  code: z
    .string({ error: "Enter the 6-digit code from your app" })
    .trim()
    .regex(/^\d{6}$/, "Enter the 6-digit code from your app"),
});

/** Turning two-step on and off, and new recovery codes. Mounted at /api/admin. */
export function twoStepAccountRoutes(services: AppServices): Router {
  const router = Router();

  // Step 1: the current password, then a new secret as a QR code and as text.
  router.post("/two-step/setup", async (req, res) => {
    const proof = parseJsonBody(req, ownerConfirmationSchema);
    if (!proof.currentPassword)
      throw badRequest("Enter your current password", { errors: { currentPassword: "Enter your current password" } });
    await confirmOwner(services, req, res, { currentPassword: proof.currentPassword });
    const enrolment = await beginEnrolment(services, res.locals.user!);
    if (enrolment === "already-on") throw new HttpError(409, "Two-step verification is already on");
    res.json(enrolment);
  });

  // Step 2: a current code from the app turns it on; the recovery codes are shown once.
  router.post("/two-step/enable", async (req, res) => {
    const { code } = parseJsonBody(req, enrolmentCodeSchema);
    const user = res.locals.user!;
    const state = await readTwoStepState(services, user.id);
    if (state.status !== "enrolling")
      throw new HttpError(409, "Start again: the setup was not found. Choose Turn on two-step verification.");
    const recoveryCodes = await confirmEnrolment(services, user.id, code);
    if (!recoveryCodes)
      throw badRequest("That code is not right. Check the app and try the current code.", {
        errors: { code: "That code is not right" },
      });
    await recordRequestActivity(services, req, { kind: "two-step.turned-on", outcome: "success" });
    await queueSecurityNotice(services, { kind: "two-step-on", userAgent: req.get("user-agent") ?? "" });
    res.json({ recoveryCodes });
  });

  router.post("/two-step/disable", async (req, res) => {
    const proof = parseJsonBody(req, ownerConfirmationSchema);
    await confirmOwner(services, req, res, proof);
    await turnOffTwoStep(services, res.locals.user!.id);
    await recordRequestActivity(services, req, { kind: "two-step.turned-off", outcome: "success" });
    await queueSecurityNotice(services, { kind: "two-step-off", userAgent: req.get("user-agent") ?? "" });
    res.json({ message: "Two-step verification is off." });
  });

  router.post("/two-step/recovery-codes", async (req, res) => {
    const proof = parseJsonBody(req, ownerConfirmationSchema);
    const user = res.locals.user!;
    await confirmOwner(services, req, res, proof);
    if ((await readTwoStepState(services, user.id)).status !== "on")
      throw new HttpError(409, "Two-step verification is off");
    const recoveryCodes = await renewRecoveryCodes(services, user.id);
    await recordRequestActivity(services, req, { kind: "two-step.codes-renewed", outcome: "success" });
    await queueSecurityNotice(services, { kind: "recovery-codes-renewed", userAgent: req.get("user-agent") ?? "" });
    res.json({ recoveryCodes });
  });

  return router;
}
