import type supertest from "supertest";

/** Anything holding a signed-in supertest agent, such as the API tests' admin context. */
type SignedIn = { admin: InstanceType<typeof supertest.agent> };

/** A fresh upload URL from POST /api/objects/upload, asked for with the spec's empty payload. */
export async function newUploadUrl(ctx: SignedIn): Promise<string> {
  const res = await ctx.admin.post("/api/objects/upload").expect(200);
  return (res.body as { uploadURL: string }).uploadURL;
}

/**
 * Registers a finished upload in a gallery (PUT /api/admin/gallery-images), with the body the
 * admin page sends: the spec's sortOrder is a string, and the server places the image last.
 */
export function registerImage(
  ctx: SignedIn,
  imageURL: string,
  options: { galleryType?: string; caption?: string } = {},
) {
  const { galleryType = "traditional", caption = "" } = options;
  return ctx.admin.put("/api/admin/gallery-images").send({ imageURL, galleryType, caption, sortOrder: "0" });
}
