import type { Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiRouter } from "../../server/api/router";
import { createPhotoDisk } from "../../server/photo-intake/photo-disk";
import { createTestContext, type TestContext } from "./helpers";

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
};

/** Every (method, path) the API router registers, walking nested routers. */
function registeredRoutes(router: Router): { method: string; path: string }[] {
  const found: { method: string; path: string }[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          if (method !== "_all") found.push({ method: method.toUpperCase(), path: prefix + layer.route.path });
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + mountPathOf(layer));
      }
    }
  };
  walk((router as unknown as { stack: Layer[] }).stack, "/api");
  return found;
}

// Express 5 (router 2) keeps the path a router was mounted at as `rawPath`.
function mountPathOf(layer: Layer): string {
  return layer.rawPath && layer.rawPath !== "/" ? layer.rawPath : "";
}

let ctx: TestContext;
let routes: { method: string; path: string }[];
beforeAll(async () => {
  ctx = await createTestContext();
  routes = registeredRoutes(createApiRouter(ctx.services, { photoDisk: createPhotoDisk(1) }));
});
afterAll(async () => {
  await ctx.close();
});

const needsAdmin = (path: string, method: string) =>
  path.startsWith("/api/admin/") ||
  path === "/api/objects/upload" ||
  (path.startsWith("/api/uploads/") && method === "PUT");

describe("every admin route refuses visitors", () => {
  it("finds the admin routes the API registers", () => {
    const admin = routes.filter((r) => needsAdmin(r.path, r.method));
    expect(admin).toEqual(
      expect.arrayContaining([
        { method: "PUT", path: "/api/admin/content/:sectionKey" },
        { method: "GET", path: "/api/admin/contact-submissions" },
        { method: "PUT", path: "/api/admin/gallery-images" },
        { method: "PUT", path: "/api/admin/gallery-images/reorder" },
        { method: "PATCH", path: "/api/admin/gallery-images/:id" },
        { method: "DELETE", path: "/api/admin/gallery-images/:id" },
        { method: "GET", path: "/api/admin/security/summary" },
        { method: "POST", path: "/api/admin/password" },
        { method: "DELETE", path: "/api/admin/sessions" },
        { method: "POST", path: "/api/objects/upload" },
        { method: "PUT", path: "/api/uploads/:objectId" },
      ]),
    );
  });

  it("answers 401 JSON for each of them without a session", async () => {
    const admin = routes.filter((r) => needsAdmin(r.path, r.method));
    expect(admin.length).toBeGreaterThanOrEqual(8);
    for (const { method, path } of admin) {
      const url = path.replace(/:(\w+)/g, "example-$1");
      const res = await ctx.api[method.toLowerCase() as "get"](url).send({});
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body, `${method} ${path}`).toEqual({ message: "Unauthorized" });
      expect(res.headers["content-type"], `${method} ${path}`).toMatch(/^application\/json/);
    }
  });

  it("refuses visitors even on admin paths no route handles", async () => {
    await ctx.api.post("/api/admin/anything/new").expect(401);
  });
});
