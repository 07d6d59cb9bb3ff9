import type { Kysely } from "kysely";
import type { DatabaseSchema } from "~/db/schema";
import { giveUpTime } from "./retry-schedule";

/** The hourly cap (decision 0021), counted in the database; past it an enquiry waits for the hour's digest. */

type Db = Kysely<DatabaseSchema>;

/** At most this many notification e-mails per clock hour; the rest go in the hour's digest. */
export const HOURLY_CAP = 30;

export const HOUR_MS = 60 * 60_000;
export const hourStartOf = (time: Date) => new Date(Math.floor(time.getTime() / HOUR_MS) * HOUR_MS);

/** Over the cap: the job waits for the digest at the end of this clock hour. */
export async function holdForDigest(db: Db, token: string, now: Date): Promise<void> {
  const hour = hourStartOf(now);
  const end = new Date(hour.getTime() + HOUR_MS);
  await db
    .updateTable("notification_jobs")
    .set({
      digest_hour: hour.toISOString(),
      next_attempt_at: end.toISOString(),
      give_up_at: giveUpTime(end),
      lease_until: null,
      lease_token: null,
      updated_at: now.toISOString(),
    })
    .where("lease_token", "=", token)
    .execute();
}

/** Takes one of this hour's sends: a conditional increment that fails at the cap. */
export async function reserveHourlySend(db: Db, now: Date): Promise<boolean> {
  const hour = hourStartOf(now).toISOString();
  await db
    .insertInto("notification_hourly_sends")
    .values({ hour, sends: 0 })
    .onConflict((oc) => oc.column("hour").doNothing())
    .execute();
  const result = await db
    .updateTable("notification_hourly_sends")
    .set((eb) => ({ sends: eb("sends", "+", 1) }))
    .where("hour", "=", hour)
    .where("sends", "<", HOURLY_CAP)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A failed send did not use the provider's quota: its slot is given back. */
export async function releaseHourlySend(db: Db, now: Date): Promise<void> {
  await db
    .updateTable("notification_hourly_sends")
    .set((eb) => ({ sends: eb("sends", "-", 1) }))
    .where("hour", "=", hourStartOf(now).toISOString())
    .where("sends", ">", 0)
    .execute();
}

/** Hours whose count can no longer change (two hours back and older) are forgotten. */
export async function pruneHourlySends(db: Db, now: Date): Promise<void> {
  const before = new Date(hourStartOf(now).getTime() - 2 * HOUR_MS).toISOString();
  await db.deleteFrom("notification_hourly_sends").where("hour", "<", before).execute();
}
