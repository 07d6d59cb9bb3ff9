/**
 * A front for s3rver that checks signatures as S3 does. s3rver accepts any
 * Signature V4 (it only looks the key id up), so without this no test could
 * tell a presigned URL that signs too little from one that signs enough.
 *
 * Each request's signature is recomputed with the AWS SDK's own signer
 * (@smithy/signature-v4, the code the SDK signs with) from what actually
 * arrived: method, path, query, the headers it claims to sign, and the
 * payload hash. Presigned URLs (X-Amz-Signature in the query) and header
 * signatures (Authorization) are both checked; an expired URL, a request
 * whose signature does not match (another key, method, path, Content-Length
 * or Content-Type than was signed), a body that does not match its signed
 * hash, and a request with no signature at all are refused with S3's own
 * error codes. A bucket is private, as S3's are by default: only CORS
 * preflights (which browsers never sign) and reads under `publicPrefixes`
 * (what README asks to publish: `variants/`) pass unsigned. Everything else
 * is proxied to s3rver unchanged.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  createServer,
  request as forward,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { SignatureV4 } from "@smithy/signature-v4";
import { createS3Client } from "~/storage/s3-storage.server";

export type VerifyingS3Front = {
  endpoint: string;
  /** Every refusal so far, newest last (for tests that look at why). */
  refusals: { code: string; method: string; path: string }[];
  stop(): Promise<void>;
};

type Credentials = { accessKeyId: string; secretAccessKey: string };

class S3Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** S3 allows a header-signed request's clock to be this far off. */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
/** Presigning puts these in the query itself; any other X-Amz-* query value was a header it hoisted there. */
const PRESIGN_PARAMS = new Set([
  "x-amz-algorithm",
  "x-amz-credential",
  "x-amz-date",
  "x-amz-expires",
  "x-amz-signedheaders",
  "x-amz-signature",
]);
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "expect", "upgrade"]);

/** "20261125T130906Z" → a Date, or null. */
function parseAmzDate(value: string | null | undefined): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}

function sameHex(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function queryObject(params: URLSearchParams, leaveOut: (name: string) => boolean): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    if (leaveOut(name)) continue;
    const values = params.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

export async function startVerifyingS3Front(options: {
  /** s3rver's endpoint, where verified requests go. */
  upstream: string;
  credentials: Credentials;
  region: string;
  /** The front's clock (for expiry and clock skew); tests of expiry move it. */
  now?: () => Date;
  /** Key prefixes anyone may GET without a key, as a bucket policy would allow (e.g. "variants/"). */
  publicPrefixes?: readonly string[];
}): Promise<VerifyingS3Front> {
  const { credentials, region } = options;
  const now = options.now ?? (() => new Date());
  const upstream = new URL(options.upstream);
  // The SDK's own SHA-256 (and HMAC), as its clients sign with.
  const sdkClient = createS3Client({ kind: "s3", bucket: "unused", region, forcePathStyle: true, credentials });
  const signer = new SignatureV4({
    credentials,
    region,
    service: "s3",
    sha256: sdkClient.config.sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  sdkClient.destroy();
  const refusals: VerifyingS3Front["refusals"] = [];
  const publicPrefixes = options.publicPrefixes ?? [];

  /** An unsigned GET or HEAD of a key under a public prefix ("/<bucket>/variants/…", path style). */
  function isPublicRead(method: string | undefined, path: string): boolean {
    if (method !== "GET" && method !== "HEAD") return false;
    const key = decodeURIComponent(path).split("/").slice(2).join("/");
    return publicPrefixes.some((prefix) => key.startsWith(prefix) && !key.includes(".."));
  }

  /** Checks a credential scope "<key id>/<yyyymmdd>/<region>/s3/aws4_request" against the signing date. */
  function checkScope(scope: string, signedAt: Date): void {
    const [keyId, day, scopeRegion, service, terminator] = scope.split("/");
    if (keyId !== credentials.accessKeyId) {
      throw new S3Refusal(
        403,
        "InvalidAccessKeyId",
        "The AWS Access Key Id you provided does not exist in our records.",
      );
    }
    const signedDay = signedAt.toISOString().slice(0, 10).replace(/-/g, "");
    if (day !== signedDay || scopeRegion !== region || service !== "s3" || terminator !== "aws4_request") {
      throw new S3Refusal(403, "SignatureDoesNotMatch", `The credential scope ${scope} does not match this request`);
    }
  }

  /** The request as the signer sees it: only the headers the client says it signed. */
  function signable(
    req: IncomingMessage,
    path: string,
    query: Record<string, string | string[]>,
    signedHeaders: string[],
  ) {
    const headers: Record<string, string> = {};
    for (const name of signedHeaders) {
      const value = headerValue(req.headers, name);
      // A signed header that did not arrive: the recomputed signature then cannot match.
      if (value !== undefined) headers[name] = value;
    }
    const host = new URL(`http://${req.headers.host ?? "invalid"}`);
    return {
      method: req.method ?? "GET",
      protocol: "http:",
      hostname: host.hostname,
      port: Number(host.port) || undefined,
      path,
      query,
      headers,
    };
  }

  async function verifyPresigned(req: IncomingMessage, path: string, params: URLSearchParams): Promise<void> {
    if (params.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") {
      throw new S3Refusal(400, "AuthorizationQueryParametersError", "X-Amz-Algorithm only supports AWS4-HMAC-SHA256");
    }
    const signedAt = parseAmzDate(params.get("X-Amz-Date"));
    const expiresIn = Number(params.get("X-Amz-Expires"));
    const signedHeaders = (params.get("X-Amz-SignedHeaders") ?? "").split(";").filter(Boolean);
    const signature = params.get("X-Amz-Signature") ?? "";
    if (
      !signedAt ||
      !Number.isInteger(expiresIn) ||
      expiresIn < 1 ||
      expiresIn > 604_800 ||
      !signedHeaders.includes("host")
    ) {
      throw new S3Refusal(
        400,
        "AuthorizationQueryParametersError",
        "The presigned URL's X-Amz-* parameters are incomplete",
      );
    }
    checkScope(params.get("X-Amz-Credential") ?? "", signedAt);
    if (now().getTime() > signedAt.getTime() + expiresIn * 1000)
      throw new S3Refusal(403, "AccessDenied", "Request has expired");
    if (now().getTime() < signedAt.getTime() - MAX_CLOCK_SKEW_MS)
      throw new S3Refusal(403, "AccessDenied", "Request is not valid yet");

    // Headers the presigner hoisted into the query go back to being headers: it hoists them again, unchanged.
    const hoisted = [...new Set(params.keys())].filter(
      (name) => name.toLowerCase().startsWith("x-amz-") && !PRESIGN_PARAMS.has(name.toLowerCase()),
    );
    const request = signable(
      req,
      path,
      queryObject(params, (name) => name === "X-Amz-Signature" || hoisted.includes(name)),
      signedHeaders,
    );
    for (const name of hoisted) request.headers[name] = params.get(name)!;
    const presigned = await signer.presign(
      // No X-Amz-Content-Sha256: a presigned payload is unsigned (a body the signer cannot hash says so).
      { ...request, body: hoisted.some((name) => name.toLowerCase() === "x-amz-content-sha256") ? undefined : {} },
      {
        signingDate: signedAt,
        expiresIn,
        signableHeaders: new Set(signedHeaders),
        unhoistableHeaders: new Set(signedHeaders.filter((name) => name.startsWith("x-amz-"))),
      },
    );
    if (!sameHex(signature, String(presigned.query?.["X-Amz-Signature"]))) {
      throw new S3Refusal(
        403,
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided.",
      );
    }
  }

  async function verifyHeaderSigned(
    req: IncomingMessage,
    path: string,
    params: URLSearchParams,
    body: Buffer,
  ): Promise<void> {
    const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
      headerValue(req.headers, "authorization") ?? "",
    );
    if (!match) throw new S3Refusal(400, "InvalidRequest", "The authorization header is malformed");
    const [, scope, signedList, signature] = match as unknown as [string, string, string, string];
    const signedAt = parseAmzDate(headerValue(req.headers, "x-amz-date"));
    if (!signedAt) throw new S3Refusal(403, "AccessDenied", "AWS authentication requires a valid X-Amz-Date header");
    checkScope(scope, signedAt);
    if (Math.abs(now().getTime() - signedAt.getTime()) > MAX_CLOCK_SKEW_MS) {
      throw new S3Refusal(
        403,
        "RequestTimeTooSkewed",
        "The difference between the request time and the current time is too large.",
      );
    }
    const signedHeaders = signedList.split(";");
    const request = signable(
      req,
      path,
      queryObject(params, () => false),
      signedHeaders,
    );
    const signed = await signer.sign(
      { ...request, body },
      { signingDate: signedAt, signableHeaders: new Set(signedHeaders) },
    );
    const recomputed = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? "";
    if (!sameHex(signature, recomputed)) {
      throw new S3Refusal(
        403,
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided.",
      );
    }
    // The signature covers the payload's hash; the payload must then have that hash.
    const payloadHash = headerValue(req.headers, "x-amz-content-sha256") ?? "";
    if (/^[0-9a-f]{64}$/.test(payloadHash) && createHash("sha256").update(body).digest("hex") !== payloadHash) {
      throw new S3Refusal(
        400,
        "XAmzContentSHA256Mismatch",
        "The provided 'x-amz-content-sha256' header does not match what was computed.",
      );
    }
    if (payloadHash.startsWith("STREAMING-"))
      throw new S3Refusal(501, "NotImplemented", "The test front does not verify aws-chunked payloads");
  }

  function refuse(res: ServerResponse, req: IncomingMessage, refusal: S3Refusal) {
    refusals.push({ code: refusal.code, method: req.method ?? "", path: req.url ?? "" });
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message></Error>`;
    res
      .writeHead(refusal.status, { "Content-Type": "application/xml", "Content-Length": Buffer.byteLength(xml) })
      .end(xml);
  }

  function proxy(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    if (body.length || req.headers["content-length"] !== undefined) headers["content-length"] = String(body.length);
    const upstreamReq = forward(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstreamReq.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    upstreamReq.end(body);
  }

  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? "/", "http://front");
      const path = (req.url ?? "/").split("?")[0]!;
      const isPreflight = req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
      // Preflights are never signed (a presigned URL's query is ignored for them, as by S3).
      if (isPreflight) proxy(req, res, body);
      else if (url.searchParams.has("X-Amz-Signature")) await verifyPresigned(req, path, url.searchParams);
      else if (req.headers.authorization !== undefined) await verifyHeaderSigned(req, path, url.searchParams, body);
      else if (!isPublicRead(req.method, path)) throw new S3Refusal(403, "AccessDenied", "Access Denied");
      if (isPreflight) return;
      proxy(req, res, body);
    } catch (error) {
      if (error instanceof S3Refusal) refuse(res, req, error);
      else if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    refusals,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
