import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { MAX_ENQUIRY_PHOTO_BYTES } from "~/enquiry-photos/enquiry-photos";
import { JSON_BODY_LIMIT_BYTES } from "../../server/api/router";
import { CONTACT_BODY_CEILING_BYTES } from "../../server/middleware/contact-multipart";
import { requestJson } from "../support/disconnect-probes";
import { formBody, jsonBody, multipartBody, rawBody, type FuzzBody } from "../support/fuzz-bodies";
import { TEST_ADMIN } from "../support/test-server";

/**
 * The disconnect fuzzer's coverage: how to fuzz each route that takes a body,
 * by the key the routers list it under (tests/support/body-routes.ts). A
 * route the routers list and this table does not fails the fuzzer: add it
 * here under the key the failure prints, with bodies of its own kind (JSON,
 * form, multipart, raw), `session` for the admin's routes, and `freshPath`
 * when every request needs a target of its own. A handler mounted on a path
 * that takes no body itself goes in PASSES_ON, with why.
 */

export type FuzzFixtures = { photo: Buffer; tinyPhoto: Buffer };

export type RouteFuzz = {
  /** Signed in as the owner: a fresh session for this route. */
  session?: boolean;
  /** The path requested: the route's, its parameters filled in. */
  path: string;
  bodies: (fixtures: FuzzFixtures) => FuzzBody[];
  /**
   * A new target before each request cut inside its body (a signed upload link works once; an upload
   * in parts is started for a body of this size); given the session's cookie and the body to be sent.
   */
  freshPath?: (port: number, cookie: string, body: FuzzBody) => Promise<string>;
};

/** Handlers mounted on a path that take no body themselves: each passes the request on, or serves only GET. */
export const PASSES_ON: Record<string, string> = {
  "USE /api/uploads/resumable":
    "requireAdmin: checks the session, then passes on to the resumable-upload routes listed under /api/uploads/resumable",
  "USE /admin": "sets no-store and noindex headers on the admin pages, then passes on",
  "USE /api/admin": "requireAdmin: checks the session, then passes on to the routes listed under /api/admin",
  "USE /assets": "static files: GET and HEAD only, anything else passes on to the 404",
};

const KB = 1024;
const PASSWORD = TEST_ADMIN.password;

/**
 * Three bodies for a JSON route: valid; invalid (unknown fields, the known ones in another order and of
 * the wrong type, and then not JSON at all); and past the 64 KB limit.
 */
function jsonBodies(
  valid: Record<string, unknown>,
  invalid: Record<string, unknown> = { unexpected: [1, 2, 3] },
): FuzzBody[] {
  const unknownAndReordered = {
    zzUnknownField: "x",
    ...invalid,
    ...Object.fromEntries(
      Object.keys(valid)
        .reverse()
        .map((key) => [key, invalid[key] ?? [key]]),
    ),
  };
  const tooLong = { ...valid, padding: "x".repeat(JSON_BODY_LIMIT_BYTES + 4 * KB) };
  return [
    jsonBody("valid", valid),
    jsonBody(
      "invalid: unknown fields, other order, wrong types, not JSON",
      `${JSON.stringify(unknownAndReordered).slice(0, -1)}, "cut": tru}`,
    ),
    { ...jsonBody("past the JSON limit", tooLong), extraCuts: [JSON_BODY_LIMIT_BYTES] },
  ];
}

const json = (
  path: string,
  valid: Record<string, unknown>,
  options: { session?: boolean; invalid?: Record<string, unknown> } = {},
): RouteFuzz => ({
  path,
  session: options.session,
  bodies: () => jsonBodies(valid, options.invalid),
});
const admin = (path: string, valid: Record<string, unknown> = {}, invalid?: Record<string, unknown>) =>
  json(path, valid, { session: true, invalid });

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000";
const CREDENTIAL = {
  id: "AAAA",
  rawId: "AAAA",
  type: "public-key",
  response: { clientDataJSON: "e30", authenticatorData: "AAAA", signature: "AAAA" },
  clientExtensionResults: {},
};

const CONTACT_TEXT: [string, string][] = [
  ["name", "Aroha Visitor"],
  ["email", "aroha@example.nz"],
  ["phone", "021 123 4567"],
  ["message", "The retaining wall behind the shed is leaning. Could you quote?"],
  ["website", ""],
];

const textParts = (pairs: [string, string][]) => pairs.map(([name, value]) => ({ name, value }));
const photoPart = (data: Buffer, name = "photos", fileName = "wall.jpg") => ({
  name,
  value: data,
  fileName,
  type: "image/jpeg",
});
const tooLargePhoto = (photo: Buffer) =>
  Buffer.concat([photo, Buffer.alloc(MAX_ENQUIRY_PHOTO_BYTES + 1 - photo.length, 0x55)]);

/** A body past a photo's size limit: cut mostly in its first 64 KB, and around the limit. */
function pastPhotoLimit(label: string, parts: Parameters<typeof multipartBody>[1]): FuzzBody {
  const body = multipartBody(label, parts);
  const limitAt = body.bytes.indexOf("\r\n\r\n") + 4 + MAX_ENQUIRY_PHOTO_BYTES;
  return { ...body, denseBytes: 64 * KB, extraCuts: [limitAt] };
}

function enquiryPhotoBodies({ photo, tinyPhoto }: FuzzFixtures): FuzzBody[] {
  return [
    multipartBody("valid", [photoPart(photo)]),
    // The reported crash: a file part not named photos; and another after the photo, sent chunked.
    multipartBody(
      "unknown names, parts in another order, chunked",
      [
        { name: "note", value: "hello" },
        photoPart(photo, "picture"),
        photoPart(tinyPhoto),
        { name: "z", value: "after" },
      ],
      { chunked: true },
    ),
    multipartBody("invalid: not a photo, then a malformed part head", [
      { name: "photos", value: "Dear Mark, notes.", fileName: "notes.txt", type: "text/plain" },
      { name: "x", value: photo, rawHead: 'Content-Disposition: form-data; name="x"; filename="a.jpg"\r\nX-Broken' },
    ]),
    multipartBody("past the number of files and of parts", [
      photoPart(tinyPhoto),
      photoPart(tinyPhoto, "photos", "second.jpg"),
      ...Array.from({ length: 12 }, (_, i) => ({ name: `field${i}`, value: "v" })),
    ]),
    pastPhotoLimit("past a photo's size", [photoPart(tooLargePhoto(photo))]),
  ];
}

function contactPageBodies({ photo, tinyPhoto }: FuzzFixtures): FuzzBody[] {
  const sixPhotos = Array.from({ length: 6 }, (_, i) => photoPart(tinyPhoto, "photos", `p${i}.jpg`));
  const manyFields = Array.from({ length: 36 }, (_, i) => ({ name: `f${i}`, value: "" }));
  return [
    formBody("form, valid", CONTACT_TEXT),
    formBody("form, invalid: unknown fields, other order", [
      ["zz", "1"],
      ["email", "not-an-email"],
      ...[...CONTACT_TEXT].reverse().filter(([name]) => name !== "email"),
      ["photos", "x"],
    ]),
    {
      ...formBody("form, past the page limit", [...CONTACT_TEXT, ["message", "x".repeat(70 * KB)]]),
      denseBytes: 70 * KB,
    },
    multipartBody("multipart, valid", [
      ...textParts(CONTACT_TEXT),
      photoPart(photo),
      photoPart(tinyPhoto, "photos", "slope.jpg"),
    ]),
    multipartBody("multipart, invalid: photos first, unknown names, not a photo, an empty file input", [
      photoPart(tinyPhoto),
      photoPart(photo, "picture"),
      { name: "photos", value: "text", fileName: "a.txt", type: "text/plain" },
      { name: "photos", value: "", fileName: "", type: "application/octet-stream" },
      { name: "zz", value: "?" },
      ...textParts(CONTACT_TEXT),
    ]),
    multipartBody("multipart, past the number of photos, fields and parts, and a field's size", [
      ...textParts(CONTACT_TEXT),
      { name: "message", value: "y".repeat(33 * KB) },
      ...sixPhotos,
      ...manyFields,
    ]),
    multipartBody("multipart, declared past the ceiling", [...textParts(CONTACT_TEXT)], {
      declaredLength: CONTACT_BODY_CEILING_BYTES + 1,
    }),
    pastPhotoLimit("multipart, past a photo's size", [...textParts(CONTACT_TEXT), photoPart(tooLargePhoto(photo))]),
  ];
}

/** A signed upload link to this server (the disk); with S3 the link is the bucket's, so this server's route can only refuse. */
async function uploadLink(port: number, cookie: string): Promise<string> {
  const res = await requestJson(port, "POST", "/api/objects/upload", {}, { Cookie: cookie });
  const { uploadURL } = res.body as { uploadURL: string };
  return uploadURL.startsWith("/") ? uploadURL : `/api/uploads/${NO_SUCH_ID}?expires=1&signature=0`;
}

/** The bucket takes the parts itself (S3): this server's part route can only refuse, so no upload is started for it. */
let partsGoToBucket = false;
/** Part 1 of a fresh upload in parts the size of `body` (the disk keeps parts through this server); with a bucket, a made-up one. */
async function resumablePartPath(port: number, cookie: string, body: FuzzBody): Promise<string> {
  const madeUp = `/api/uploads/resumable/${NO_SUCH_ID}/parts/1`;
  if (partsGoToBucket) return madeUp;
  const res = await requestJson(
    port,
    "POST",
    "/api/uploads/resumable",
    { size: body.bytes.length, type: "image/jpeg" },
    { Cookie: cookie },
  );
  const url = res.status === 201 ? (res.body as { parts: { url: string }[] }).parts[0]!.url : madeUp;
  partsGoToBucket = !url.startsWith("/");
  return partsGoToBucket ? madeUp : url;
}

export const ROUTES: Record<string, RouteFuzz> = {
  "PUT /api/uploads/resumable/:uploadId/parts/:partNumber": {
    session: true,
    path: `/api/uploads/resumable/${NO_SUCH_ID}/parts/1`,
    freshPath: resumablePartPath,
    bodies: ({ photo }) => [
      rawBody("a photo, in one part", photo, "image/jpeg"),
      rawBody("not an image", Buffer.from("plain text, not an image"), "image/jpeg"),
      rawBody("declared past the part's size", photo, "image/jpeg", { declaredLength: MAX_UPLOAD_BYTES + 1 }),
    ],
  },
  "POST /api/uploads/resumable": admin("/api/uploads/resumable", { size: 1234, type: "image/jpeg" }, { size: "big" }),
  "POST /api/uploads/resumable/:uploadId/complete": admin(
    `/api/uploads/resumable/${NO_SUCH_ID}/complete`,
    { parts: [{ partNumber: 1, etag: '"0123456789abcdef0123456789abcdef"' }] },
    { parts: "all of them" },
  ),
  "PUT /api/uploads/:objectId": {
    session: true,
    path: `/api/uploads/${NO_SUCH_ID}`,
    freshPath: (port, cookie) => uploadLink(port, cookie),
    bodies: ({ photo }) => [
      rawBody("a photo", photo, "image/jpeg"),
      rawBody("not an image", Buffer.from("plain text, not an image"), "image/jpeg"),
      rawBody("declared past the upload limit", photo, "image/jpeg", { declaredLength: MAX_UPLOAD_BYTES + 1 }),
    ],
  },
  "POST /api/enquiry-photos": { path: "/api/enquiry-photos", bodies: enquiryPhotoBodies },
  "POST /contact": { path: "/contact", bodies: contactPageBodies },
  "POST /api/contact": json("/api/contact", {
    name: "Aroha Visitor",
    email: "aroha@example.nz",
    message: "A quote for a wall, please.",
    photoTokens: ["made-up"],
  }),
  "POST /api/page-views/shown": json("/api/page-views/shown", {}),
  "POST /api/login": json("/api/login", { username: TEST_ADMIN.username, password: PASSWORD }),
  "POST /api/logout": json("/api/logout", {}),
  "POST /api/login/two-factor": json("/api/login/two-factor", { code: "123456" }),
  "POST /api/login/passkey/options": json("/api/login/passkey/options", {}),
  "POST /api/login/passkey": json("/api/login/passkey", { response: CREDENTIAL }),
  "POST /api/objects/upload": admin("/api/objects/upload", { size: 1234, type: "image/jpeg" }, { size: "big" }),
  "PUT /api/admin/content/:sectionKey": admin(
    "/api/admin/content/hero.title",
    { content: "Stone walls that last" },
    { content: 42 },
  ),
  "POST /api/admin/content/:sectionKey/history/:versionId/restore": admin(
    `/api/admin/content/hero.title/history/${NO_SUCH_ID}/restore`,
  ),
  "DELETE /api/admin/content/:sectionKey": admin("/api/admin/content/hero.subtitle"),
  "PATCH /api/admin/contact-submissions/:id": admin(
    `/api/admin/contact-submissions/${NO_SUCH_ID}`,
    { read: true },
    { read: "yes" },
  ),
  "DELETE /api/admin/contact-submissions/:id": admin(`/api/admin/contact-submissions/${NO_SUCH_ID}`),
  "POST /api/admin/contact-submissions/:id/resend": admin(`/api/admin/contact-submissions/${NO_SUCH_ID}/resend`),
  "POST /api/admin/contact-submissions/:id/review-asked": admin(
    `/api/admin/contact-submissions/${NO_SUCH_ID}/review-asked`,
  ),
  "POST /api/admin/reviews": admin("/api/admin/reviews", { quote: "Tidy work, on time.", name: "Sarah K." }),
  "PUT /api/admin/reviews/reorder": admin("/api/admin/reviews/reorder", { ids: [NO_SUCH_ID] }),
  "PATCH /api/admin/reviews/:id": admin(`/api/admin/reviews/${NO_SUCH_ID}`, { hidden: true }),
  "DELETE /api/admin/reviews/:id": admin(`/api/admin/reviews/${NO_SUCH_ID}`),
  "POST /api/admin/notifications/test": admin("/api/admin/notifications/test"),
  "PUT /api/admin/gallery-images": admin("/api/admin/gallery-images", {
    imageURL: `/api/uploads/${NO_SUCH_ID}`,
    galleryType: "veneer",
    caption: "",
  }),
  "PUT /api/admin/gallery-images/reorder": admin("/api/admin/gallery-images/reorder", {
    galleryType: "veneer",
    imageIds: [NO_SUCH_ID],
  }),
  "PATCH /api/admin/gallery-images/:id": admin(
    `/api/admin/gallery-images/${NO_SUCH_ID}`,
    { caption: "Basalt" },
    { caption: 7 },
  ),
  "DELETE /api/admin/gallery-images/:id": admin(`/api/admin/gallery-images/${NO_SUCH_ID}`),
  "POST /api/admin/password": admin("/api/admin/password", {
    currentPassword: PASSWORD,
    newPassword: PASSWORD,
    confirmPassword: PASSWORD,
  }),
  "DELETE /api/admin/sessions": admin("/api/admin/sessions"),
  "POST /api/admin/passkeys/options": admin("/api/admin/passkeys/options", { currentPassword: PASSWORD }),
  "POST /api/admin/passkeys": admin("/api/admin/passkeys", { response: CREDENTIAL, name: "Phone" }),
  "DELETE /api/admin/passkeys/:id": admin(`/api/admin/passkeys/${NO_SUCH_ID}`, { currentPassword: PASSWORD }),
  "POST /api/admin/confirm/passkey/options": admin("/api/admin/confirm/passkey/options"),
  "POST /api/admin/two-step/setup": admin("/api/admin/two-step/setup", { currentPassword: PASSWORD }),
  "POST /api/admin/two-step/enable": admin("/api/admin/two-step/enable", { code: "123456" }, { code: "abc" }),
  "POST /api/admin/two-step/disable": admin("/api/admin/two-step/disable", { currentPassword: PASSWORD }),
  "POST /api/admin/two-step/recovery-codes": admin("/api/admin/two-step/recovery-codes", { currentPassword: PASSWORD }),
};

/**
 * Not a route that takes a body, but a post the server still reads the start of: fuzzed alike. (A page
 * without an action was too, once: each cut renders the page for nobody, the fuzzer's dearest request,
 * and it found nothing.)
 */
export const EXTRA_TARGETS: Record<string, RouteFuzz> = {
  "POST /api/no-such-route": { path: "/api/no-such-route", bodies: () => [jsonBody("JSON", { anything: true })] },
};
