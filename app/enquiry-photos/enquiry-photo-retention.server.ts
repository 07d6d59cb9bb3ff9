import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { TimerClock } from "~/lib/clock";
import { every, type Every } from "~/lib/every";
import type { AppServices } from "~/services.server";
import { enquiryPhotoTempDir } from "./enquiry-photo-accept.server";
import { enquiryPhotoKeys } from "./enquiry-photo-keys.server";
import { deleteEnquiryPhotoObjects } from "./enquiry-photos.server";

/** Hourly; an unattached photo goes a margin after its token expires, so none is taken while processing. */

type Services = Pick<AppServices, "db" | "storage" | "logger" | "clock" | "env">;

/** After its token expires, an unattached photo is kept this much longer. */
export const UNATTACHED_MARGIN_MS = 15 * 60_000;
const RUN_EVERY_MS = 60 * 60_000;
/** A temporary file lives as long as its post: an hour is far longer than a 15 MB photo takes on a slow signal. */
const STALE_TEMP_FILE_MS = 60 * 60_000;
const BATCH = 200;
const DAY_MS = 24 * 60 * 60_000;

/** One pass; returns how many photos were deleted. */
export async function pruneEnquiryPhotos(services: Services): Promise<number> {
  const now = services.clock.now().getTime();
  const tooOld = new Date(now - services.env.ENQUIRY_PHOTO_DAYS * DAY_MS).toISOString();
  const abandoned = new Date(now - UNATTACHED_MARGIN_MS).toISOString();
  let deleted = 0;
  for (;;) {
    const rows = await services.db
      .selectFrom("enquiry_photos")
      .select(["id", "thumb_key", "view_key"])
      .where((eb) =>
        eb.or([
          eb("created_at", "<", tooOld),
          eb.and([eb("submission_id", "is", null), eb("expires_at", "<", abandoned)]),
        ]),
      )
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    await services.db
      .deleteFrom("enquiry_photos")
      .where(
        "id",
        "in",
        rows.map((row) => row.id),
      )
      .execute();
    // Keys are derived from the id too: a photo whose processing died half-way left files without naming them.
    const keys = rows.flatMap((row) => Object.values(enquiryPhotoKeys(row.id)));
    await deleteEnquiryPhotoObjects(services, keys);
    deleted += rows.length;
    if (rows.length < BATCH) break;
  }
  await removeStaleTempFiles(services, now);
  if (deleted > 0) services.logger.info({ deleted }, "old and unused enquiry photos deleted");
  return deleted;
}

/** Temp files go when their post is done, so one over an hour old was left by a crash. Also empties the old folder. */
async function removeStaleTempFiles(services: Services, now: number): Promise<void> {
  const dir = enquiryPhotoTempDir(services.env);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && now - info.mtimeMs > STALE_TEMP_FILE_MS)
      await rm(file, { recursive: true, force: true }).catch(() => {});
  }
  await rm(path.join(path.dirname(dir), "contact-photos"), { recursive: true, force: true }).catch(() => {});
}

/** Every hour and at start; a pass still running when the next is due is not doubled. */
export function createEnquiryPhotoRetention(
  services: Services,
  options: { everyMs?: number; clock?: TimerClock } = {},
): Every {
  return every(options.everyMs ?? RUN_EVERY_MS, () => pruneEnquiryPhotos(services), {
    clock: options.clock,
    runAtStart: true,
    onError: (error) => services.logger.warn({ err: error }, "could not delete old enquiry photos; will retry"),
  });
}
