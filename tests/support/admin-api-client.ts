import { TEST_ADMIN } from "./test-server";

/**
 * The admin API over plain HTTP, for tests and benchmarks that drive a
 * separately started server without a browser.
 */
export async function signInOverHttp(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(TEST_ADMIN),
  });
  if (res.status !== 200) throw new Error(`Sign-in failed: ${res.status}`);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

/** Asks for an upload URL and PUTs the file there; returns the URL. */
export async function uploadOverHttp(baseUrl: string, cookie: string, body: Buffer): Promise<string> {
  const target = await fetch(`${baseUrl}/api/objects/upload`, { method: "POST", headers: { Cookie: cookie } });
  const { uploadURL } = (await target.json()) as { uploadURL: string };
  const put = await fetch(`${baseUrl}${uploadURL}`, {
    method: "PUT",
    headers: { "Content-Type": "application/octet-stream", Cookie: cookie },
    body: new Uint8Array(body),
  });
  if (put.status !== 200) throw new Error(`Upload failed: ${put.status} ${await put.text()}`);
  return uploadURL;
}

/** Registers an upload in a gallery (this is when the image is processed). */
export async function registerOverHttp(
  baseUrl: string,
  cookie: string,
  imageURL: string,
  options: { galleryType?: string; caption?: string } = {},
): Promise<{ status: number; body: { message?: string; id?: string; width?: number; height?: number } }> {
  const res = await fetch(`${baseUrl}/api/admin/gallery-images`, {
    method: "PUT",
    headers: { "Content-Type": "application/json", Cookie: cookie },
    body: JSON.stringify({
      imageURL,
      galleryType: options.galleryType ?? "traditional",
      caption: options.caption ?? "",
    }),
  });
  return { status: res.status, body: (await res.json()) as { message?: string } };
}
