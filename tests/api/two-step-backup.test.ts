// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Secret, TOTP } from "otpauth";
import { afterAll, describe, expect, it } from "vitest";
import { ensureAdministrator } from "~/auth/auth.server";
import { beginEnrolment, checkSecondStep, confirmEnrolment, readTwoStepState } from "~/auth/two-step.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import { restoreBackup } from "~/backups/restore.server";
import { createManualClock } from "~/lib/clock";
import { openSite } from "../support/backup-site";

/**
 * A backup holds the passkeys' public keys and the sealed
 * two-step secret, never the key that opens it (DATA_DIR/secrets/). Restored
 * onto the same installation, two-step keeps working; restored elsewhere,
 * it cannot be read, so it is off there and the dashboard says so.
 */
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-two-step-backup-"));
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

describe("two-step verification in a backup", () => {
  it("keeps working after a restore onto the same installation, and is off (unreadable) after a restore elsewhere", async () => {
    const clock = createManualClock("2026-03-02T09:00:10.000Z");
    const dataDir = path.join(tmp, "site");
    let services = await openSite(dataDir);
    await ensureAdministrator(services, { username: "owner", password: "the owner's password" });
    const user = await services.db.selectFrom("users").select(["id", "username"]).executeTakeFirstOrThrow();
    const withClock = { ...services, clock };
    const enrolment = await beginEnrolment(withClock, user);
    if (enrolment === "already-on") throw new Error("unexpected");
    const totp = new TOTP({ secret: Secret.fromBase32(enrolment.secret) });
    const codes = await confirmEnrolment(withClock, user.id, totp.generate({ timestamp: clock.now().getTime() }));
    expect(codes).toHaveLength(10);
    await services.db
      .insertInto("passkeys")
      .values({
        id: "cred",
        user_id: user.id,
        name: "Mark's iPhone",
        public_key: "cHVibGlj",
        counter: 3,
        transports: "[]",
        created_at: "2026-03-02T09:00:00.000Z",
        last_used_at: null,
      })
      .execute();

    const archive = path.join(tmp, "site.tar.gz");
    const result = await createBackup(services, {
      purpose: "manual",
      workDir: backupsDirOf(dataDir),
      destination: { kind: "file", path: archive },
    });
    expect(result.status).toBe("succeeded");
    await services.close();

    // The same installation: same secrets/, so the sealed secret opens.
    await restoreBackup({ dataDir, file: archive });
    services = await openSite(dataDir);
    try {
      clock.advance(60_000);
      const again = { ...services, clock };
      expect(await readTwoStepState(again, user.id)).toEqual({ status: "on", recoveryCodesLeft: 10 });
      expect(await checkSecondStep(again, user.id, totp.generate({ timestamp: clock.now().getTime() }))).toBe(
        "app-code",
      );
      expect(await checkSecondStep(again, user.id, codes![0]!)).toBe("recovery-code");
      const passkeys = await services.db.selectFrom("passkeys").select(["id", "public_key", "counter"]).execute();
      expect(passkeys).toEqual([{ id: "cred", public_key: "cHVibGlj", counter: 3 }]);
    } finally {
      await services.close();
    }

    // Another installation: its own secrets/, so the secret cannot be read: off, and said so.
    const elsewhere = path.join(tmp, "elsewhere");
    await restoreBackup({ dataDir: elsewhere, file: archive });
    services = await openSite(elsewhere);
    try {
      const there = { ...services, clock };
      expect(await readTwoStepState(there, user.id)).toEqual({ status: "unreadable", recoveryCodesLeft: 0 });
      expect(await checkSecondStep(there, user.id, totp.generate({ timestamp: clock.now().getTime() }))).toBeNull();
      expect(await checkSecondStep(there, user.id, codes![1]!)).toBeNull();
    } finally {
      await services.close();
    }
  });
});
