import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { Secret, TOTP } from "otpauth";
import { beginEnrolment, confirmEnrolment } from "~/auth/two-step.server";
import { saveContent } from "~/content/content.server";
import { enquiryPhotoKeys } from "~/enquiry-photos/enquiry-photo-keys.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import type { Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";
import { dumpSite, SITE_TEXTS, type SiteDump } from "./backup-site";

/**
 * A small real site for the off-site copy tests (decision 0070): texts, two
 * galleries, enquiries with photos (their rows and their two stored copies),
 * and the administrator with two-step verification on. Built through the
 * services, so it sits on whichever back end the services use.
 */
export const OFFSITE_PASSPHRASE = "quarry-lantern-basalt-orchard";
/** Words that must never be readable in the off-site repository. */
export const SECRET_WORDS = {
  enquiry: "could you quote for a basalt retaining wall",
  photoName: "enquiry-photos/",
} as const;

/** A photo-like file: a JPEG's first bytes, then random ones (as incompressible as a real photo). */
export function photoLike(bytes: number): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(bytes - 4)]);
}

/** An enquiry with `photos` photos attached, stored as the photo pipeline leaves them. */
export async function insertEnquiryWithPhotos(
  services: Pick<AppServices, "db" | "storage">,
  n: number,
  photos: number,
  at: Date,
): Promise<string> {
  const id = randomUUID();
  await services.db
    .insertInto("contact_submissions")
    .values({
      id,
      name: `Visitor ${n}`,
      email: `visitor${n}@example.co.nz`,
      phone: null,
      message: `Enquiry ${n}: ${SECRET_WORDS.enquiry}?`,
      submitted_at: at.toISOString(),
    })
    .execute();
  for (let position = 1; position <= photos; position++) {
    const photoId = randomUUID();
    const { thumbKey, viewKey } = enquiryPhotoKeys(photoId);
    const thumb = photoLike(6_000);
    const view = photoLike(90_000);
    await services.storage.write(thumbKey, Readable.from([thumb]));
    await services.storage.write(viewKey, Readable.from([view]));
    await services.db
      .insertInto("enquiry_photos")
      .values({
        id: photoId,
        token_hash: createHash("sha256").update(randomBytes(16)).digest("hex"),
        address_hash: "a".repeat(64),
        status: "ready",
        submission_id: id,
        position,
        thumb_key: thumbKey,
        view_key: viewKey,
        thumb_bytes: thumb.length,
        view_bytes: view.length,
        width: 1200,
        height: 900,
        created_at: at.toISOString(),
        expires_at: new Date(at.getTime() + 3_600_000).toISOString(),
      })
      .execute();
  }
  return id;
}

/** Texts, galleries, enquiries with photos, and two-step on for the administrator (who must exist). Returns the TOTP. */
export async function fillOffsiteSite(
  services: AppServices & { clock: Clock },
): Promise<{ totp: TOTP; recoveryCodes: string[] }> {
  for (const [key, content] of Object.entries(SITE_TEXTS))
    await saveContent(services, key as keyof typeof SITE_TEXTS, content);
  await seedDemoGallery(services, "traditional", 2, { width: 480, height: 320 });
  await seedDemoGallery(services, "veneer", 1, { width: 480, height: 320 });
  for (let n = 0; n < 3; n++) await insertEnquiryWithPhotos(services, n, n, services.clock.now());
  const user = await services.db.selectFrom("users").select(["id", "username"]).executeTakeFirstOrThrow();
  const enrolment = await beginEnrolment(services, user);
  if (enrolment === "already-on") throw new Error("two-step was on already");
  const totp = new TOTP({ secret: Secret.fromBase32(enrolment.secret) });
  const recoveryCodes = await confirmEnrolment(
    services,
    user.id,
    totp.generate({ timestamp: services.clock.now().getTime() }),
  );
  if (!recoveryCodes) throw new Error("two-step enrolment failed");
  return { totp, recoveryCodes };
}

/** Every row and every stored object's hash, enquiry photos included (dumpSite covers the galleries). */
export async function dumpOffsiteSite(services: Pick<AppServices, "db" | "storage">): Promise<SiteDump> {
  const dump = await dumpSite(services);
  const photos = await services.db.selectFrom("enquiry_photos").select(["thumb_key", "view_key"]).execute();
  for (const key of photos
    .flatMap((row) => [row.thumb_key, row.view_key])
    .filter((k): k is string => Boolean(k))
    .sort()) {
    const object = await services.storage.read(key);
    if (!object) throw new Error(`missing object ${key}`);
    const hash = createHash("sha256");
    for await (const chunk of object.stream) hash.update(chunk as Buffer);
    dump.objects[key] = hash.digest("hex");
  }
  // A restore seals the two-step secret again with the new installation's key (decision 0058), so
  // the sealed bytes differ by design; whether the carried secret still works is checked by signing in.
  for (const row of dump.tables.two_factor ?? []) {
    row.secret_encrypted = row.secret_encrypted ? "(sealed)" : null;
    delete row.recovery_key_sealed;
  }
  return dump;
}

/** The off-site bucket's settings: one definition, beside the main bucket's (tests/support/s3-backend.ts). */
export { offsiteS3Env as offsiteEnv } from "./s3-backend";
