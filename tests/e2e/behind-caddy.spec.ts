// @desktop-only: server behaviour, the same at any screen size
import { spawnSync } from "node:child_process";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { STRICT_TRANSPORT_SECURITY } from "../../server/middleware/security-headers";
import { caddyBinary, startCaddy, type Caddy } from "../support/caddy";
import { freePort, startTestServer, type TestServer } from "../support/test-server";
import { expectToast, imageCards, jpegFile, openView, uploadInput } from "./admin-helpers";
import { test as base, expect, hydrated, signIn } from "./fixtures";

/**
 * The production build behind a real Caddy over HTTPS, configured as docs/DEPLOY.md says:
 * Caddy terminates TLS and proxies to Node; Node trusts only its loopback neighbour
 * (TRUST_PROXY=loopback) for the client address and the protocol.
 */
type Proxied = { server: TestServer; caddy: Caddy };

const test = base.extend<{ proxied: Proxied }, { proxiedWorker: Proxied }>({
  proxiedWorker: [
    async ({}, use) => {
      const caddyPort = await freePort();
      // All interfaces, so the test can also reach Node from a non-loopback address.
      const server = await startTestServer({
        env: { HOST: "0.0.0.0", TRUST_PROXY: "loopback", SITE_URL: `https://127.0.0.1:${caddyPort}` },
      });
      let caddy: Caddy;
      try {
        caddy = await startCaddy({ upstream: `127.0.0.1:${server.port}`, port: caddyPort });
      } catch (error) {
        await server.stop();
        throw error;
      }
      await use({ server, caddy });
      await caddy.stop();
      await server.stop();
    },
    { scope: "worker" },
  ],
  proxied: async ({ proxiedWorker }, use) => use(proxiedWorker),
  baseURL: async ({ proxiedWorker }, use) => use(proxiedWorker.caddy.url),
  // Caddy replaces any X-Forwarded-For a client sends; nothing to add here.
  extraHTTPHeaders: async ({}, use) => use({}),
});
// Chromium does not know Caddy's internal CA; the Node-side checks below verify TLS against it.
test.use({ ignoreHTTPSErrors: true });

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** An HTTPS request through Caddy from a chosen loopback source address, verified against Caddy's root CA. */
function httpsRequest(
  caddy: Caddy,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string; localAddress?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(options.path, caddy.url);
    const req = https.request(
      url,
      {
        method: options.method ?? "GET",
        headers: options.headers,
        ca: caddy.rootCertificate,
        localAddress: options.localAddress,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** This machine's first non-internal IPv4 address: a client the server must not trust. */
function outsideAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === "IPv4" && !address.internal) return address.address;
  }
  throw new Error(
    "This machine has no non-loopback IPv4 address, so the direct-to-Node check cannot run. Give it one (any network interface).",
  );
}

const enquiry = (n: number) =>
  JSON.stringify({
    name: `Visitor ${n}`,
    email: `v${n}@example.co.nz`,
    message: `Enquiry ${n} sent through the proxy.`,
  });

let sourceCounter = 0;

test.describe("behind Caddy over HTTPS", () => {
  test("pages load over HTTPS, with HSTS on the first render and on the cached copy", async ({ page, proxied }) => {
    const first = await page.goto("/");
    expect(first!.status()).toBe(200);
    expect(first!.url()).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    expect(await first!.headerValue("strict-transport-security")).toBe(STRICT_TRANSPORT_SECURITY);
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const cached = await httpsRequest(proxied.caddy, { path: "/" });
    expect(cached.status).toBe(200);
    expect(cached.headers["strict-transport-security"]).toBe(STRICT_TRANSPORT_SECURITY);
    const stonework = await page.goto("/stonework");
    expect(stonework!.status()).toBe(200);
  });

  test("sign-in works and its session cookie is __Host-, Secure, HttpOnly and SameSite=Strict", async ({
    page,
    context,
  }) => {
    await signIn(page);
    const session = (await context.cookies()).find((cookie) => cookie.name === "__Host-cornerstone_session");
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: "Strict", path: "/" });
    const me = await page.request.get("/api/auth/user");
    expect(me.status()).toBe(200);
    expect(me.headers()["strict-transport-security"]).toBe(STRICT_TRANSPORT_SECURITY);
  });

  test("a real upload goes through Caddy and its image is served back through it", async ({ page }) => {
    await signIn(page);
    await openView(page, "Hard Landscaping", "Hard Landscaping Gallery");
    const before = await imageCards(page).count();
    await page.getByRole("button", { name: "Upload Images" }).click();
    await uploadInput(page).setInputFiles([await jpegFile("through-caddy.jpg", { width: 1400, height: 900 })]);
    await page
      .getByRole("dialog", { name: "Upload Images" })
      .getByRole("button", { name: "Upload 1 Image(s)" })
      .click();
    await expectToast(page, "Success", "Image uploaded successfully", "default");
    await expect(imageCards(page)).toHaveCount(before + 1);

    const images = (await (await page.request.get("/api/galleries/landscaping")).json()) as {
      variants: { avif: { path: string }[] };
    }[];
    const variant = await page.request.get(images.at(-1)!.variants.avif[0]!.path);
    expect(variant.status()).toBe(200);
    expect(variant.headers()["content-type"]).toBe("image/avif");
  });

  test("limits count the address Caddy saw: the sixth enquiry from one address is refused whatever X-Forwarded-For it sends", async ({
    proxied,
  }, testInfo) => {
    // A source address of this test's own (any 127.x.y.z reaches a loopback listener).
    sourceCounter += 1;
    const subnet = `127.${(testInfo.workerIndex % 200) + 20}.${sourceCounter % 250}`;
    const visitor = `${subnet}.2`;
    const neighbour = `${subnet}.3`;
    const send = (n: number, from: string, forwardedFor: string) =>
      httpsRequest(proxied.caddy, {
        method: "POST",
        path: "/api/contact",
        localAddress: from,
        headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor },
        body: enquiry(n),
      });

    for (let n = 1; n <= 5; n++) {
      // Each time a different address claimed, as a spammer would.
      const reply = await send(n, visitor, `203.0.113.${n}, 198.51.100.${n}`);
      expect(reply.status, reply.body).toBe(201);
    }
    const sixth = await send(6, visitor, "192.0.2.250");
    expect(sixth.status).toBe(429);
    expect(JSON.parse(sixth.body)).toEqual({
      message: "Too many messages from this address. Please try again later or call directly.",
    });
    expect(Number(sixth.headers["retry-after"])).toBeGreaterThan(0);
    // Another address Caddy sees is counted on its own.
    expect((await send(7, neighbour, "192.0.2.250")).status).toBe(201);
  });

  test("a request straight to the Node port: forged forwarding headers change nothing", async ({ proxied }) => {
    // With an https:// SITE_URL the server sends HSTS and Secure __Host- cookies
    // whatever the request came over, so a forged X-Forwarded-Proto gains nothing;
    // and the Node port does not trust X-Forwarded-For from outside addresses.
    const direct = `http://${outsideAddress()}:${proxied.server.port}`;
    const spoofed = {
      "X-Forwarded-Proto": "https",
      "X-Forwarded-For": "127.0.0.1",
      "X-Forwarded-Host": new URL(proxied.caddy.url).host,
    };

    const plain = await fetch(`${direct}/`);
    const forged = await fetch(`${direct}/`, { headers: spoofed });
    expect(forged.status).toBe(200);
    expect(forged.headers.get("strict-transport-security")).toBe(plain.headers.get("strict-transport-security"));
    expect(forged.headers.get("strict-transport-security")).toBe(STRICT_TRANSPORT_SECURITY);

    const login = await fetch(`${direct}/api/login`, {
      method: "POST",
      headers: { ...spoofed, "Content-Type": "application/json" },
      body: JSON.stringify({ username: "owner", password: "correct horse battery staple" }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-cornerstone_session=/);
    expect(cookie).toMatch(/;\s*Secure/i);
  });
});

test("deploy/Caddyfile is valid Caddy configuration that proxies the domain to Node on 127.0.0.1:3000", () => {
  const file = path.resolve("deploy/Caddyfile");
  const adapted = spawnSync(caddyBinary(), ["adapt", "--config", file, "--adapter", "caddyfile"], { encoding: "utf8" });
  expect(adapted.status, adapted.stderr).toBe(0);
  const json = adapted.stdout;
  expect(json).toContain('"dial":"127.0.0.1:3000"');
  expect(json).toContain('"example.co.nz"');
});
