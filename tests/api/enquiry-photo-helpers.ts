import { expect } from "vitest";
import type { ManualClock } from "~/lib/clock";
import { createAdminContext } from "./helpers";

/** A site with an administrator, whose requests name their client address (TRUST_PROXY=loopback). */
export async function createPhotoContext(env: Record<string, string> = {}, clock?: ManualClock) {
  const ctx = await createAdminContext({ TRUST_PROXY: "loopback", ...env }, { clock });

  /** POST /api/enquiry-photos with one file, from `ip`. */
  const upload = (file: Buffer, name = "wall.jpg", ip = "203.0.113.7", type = "image/jpeg") =>
    ctx.api
      .post("/api/enquiry-photos")
      .set("X-Forwarded-For", ip)
      .attach("photos", file, { filename: name, contentType: type });

  /** An accepted photo's token. */
  const tokenFor = async (file: Buffer, name = "wall.jpg", ip = "203.0.113.7") => {
    const res = await upload(file, name, ip);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { token: string }).token;
  };

  /** POST /api/contact with the spec's fields and, when given, photoTokens. */
  // Each enquiry's text differs: the same enquiry again within 10 minutes is stored only once.
  let enquiries = 0;
  const enquire = (photoTokens?: string[], ip = "203.0.113.7") =>
    ctx.api
      .post("/api/contact")
      .set("X-Forwarded-For", ip)
      .send({
        name: "Aroha Visitor",
        email: "aroha@example.nz",
        message: `The retaining wall behind the shed is leaning. Photos attached (${++enquiries}).`,
        ...(photoTokens ? { photoTokens } : {}),
      });

  /** The rows of enquiry_photos (all of them). */
  const photoRows = () => ctx.services.db.selectFrom("enquiry_photos").selectAll().orderBy("created_at").execute();

  return { ...ctx, upload, tokenFor, enquire, photoRows };
}

export type PhotoContext = Awaited<ReturnType<typeof createPhotoContext>>;
