// @phone-only: the owner's flow on the phone; its checks never look at the layout
import type { Request } from "@playwright/test";
import {
  expectToast,
  galleryImages,
  imageCards,
  jpegFile,
  openView,
  publicGallerySources,
  uploadInput,
} from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, hydrated, test } from "./scaled-fixtures";

// The server runs on PostgreSQL with an S3 bucket (s3rver): photos go from the browser straight to the bucket.
test("a photo goes from the admin straight to the bucket, with no cookies, and shows on the site", async ({
  page,
  s3Endpoint,
  s3rverEndpoint,
}) => {
  await signInApi(page.request);
  await page.goto("/admin");
  await openView(page, "Veneer Stonework", "Veneer Stonework Gallery");

  const bucketPuts: Request[] = [];
  const registrations: { imageURL: string }[] = [];
  page.on("request", (request) => {
    if (request.method() === "PUT" && request.url().startsWith(`${s3Endpoint}/`)) bucketPuts.push(request);
    if (request.method() === "PUT" && new URL(request.url()).pathname === "/api/admin/gallery-images")
      registrations.push(request.postDataJSON());
  });

  await page.getByRole("button", { name: "Upload Images" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Images" });
  const photo = await jpegFile("wall-from-the-phone.jpg", { width: 1600, height: 1200 });
  await uploadInput(page).setInputFiles([photo]);
  await dialog.getByRole("button", { name: "Upload 1 Image(s)" }).click();
  await expectToast(page, "Success", "Image uploaded successfully", "default");
  await expect(imageCards(page)).toHaveCount(1);

  // One part (the photo is under 5 MiB), PUT to a presigned incoming/ key of the bucket (never through this
  // server), with no cookies (decision 0062)…
  expect(bucketPuts).toHaveLength(1);
  const put = bucketPuts[0]!;
  const putUrl = new URL(put.url());
  expect(putUrl.pathname).toMatch(/^\/t-[0-9a-f]{16}\/incoming\/[0-9a-f-]{36}$/);
  expect(putUrl.searchParams.get("partNumber")).toBe("1");
  expect(putUrl.searchParams.get("uploadId")).toBeTruthy();
  expect(putUrl.searchParams.get("X-Amz-Expires")).toBe("900");
  // Signed for this very part: its size (the verifying front refuses any other).
  expect(putUrl.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;host");
  const headers = await put.allHeaders();
  expect(headers.cookie).toBeUndefined();
  const answer = await put.response();
  expect(answer?.status()).toBe(200);
  // The bucket's CORS rule lets the page read the part's ETag, which completing the upload needs.
  expect(answer?.headers()["access-control-expose-headers"]).toMatch(/etag/i);
  // …then registered with this server by the object's own address, which moved the very bytes sent to a private key.
  expect(registrations).toEqual([
    expect.objectContaining({ imageURL: `${putUrl.origin}${putUrl.pathname}`, galleryType: "veneer" }),
  ]);
  const [, bucket, , id] = putUrl.pathname.split("/");
  // The bucket keeps it private: no key, no photo.
  expect((await page.request.get(`${s3Endpoint}/${bucket}/originals/${id}`)).status()).toBe(403);
  const original = await page.request.get(`${s3rverEndpoint}/${bucket}/originals/${id}`);
  expect(Buffer.from(await original.body()).equals(photo.buffer)).toBe(true);
  expect(original.headers()["content-type"]).toBe("image/jpeg");
  expect((await page.request.get(`${s3rverEndpoint}/${bucket}/incoming/${id}`)).status()).toBe(404);

  // The public gallery shows it, its variants streamed from the bucket through /media/.
  const [image] = await galleryImages(page.request, "veneer");
  await page.goto("/stonework");
  await hydrated(page);
  await expect.poll(() => publicGallerySources(page, "veneer")).toEqual([image!.imagePath]);
  const served = await page.request.get(image!.imagePath);
  expect(served.status()).toBe(200);
  expect(served.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
  expect(served.headers()["content-type"]).toBe("image/jpeg");
});

test("the admin page may connect to the bucket's origin and nothing else beyond its own", async ({
  page,
  s3Endpoint,
}) => {
  const res = await page.request.get("/admin");
  const csp = res.headers()["content-security-policy"]!;
  expect(csp).toContain(`connect-src 'self' ${new URL(s3Endpoint).origin};`);
  expect(csp).toContain("img-src 'self' data: blob:;");
});
