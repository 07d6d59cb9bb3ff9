import { describe, expect, it } from "vitest";
import { PAGE_GROUPS } from "~/content/sections";
import { GALLERY_TYPES } from "~/galleries/gallery";
import { DASHBOARD, openerIdFor, SETTINGS_VIEWS, viewFromParam, viewHref, viewToParam, type AdminView } from "./view";

describe("admin view parameter", () => {
  it("round-trips every view", () => {
    const views: AdminView[] = [
      DASHBOARD,
      { kind: "submissions" },
      ...PAGE_GROUPS.map((group) => ({ kind: "content", group }) as const),
      ...GALLERY_TYPES.map((galleryType) => ({ kind: "gallery", galleryType }) as const),
      ...SETTINGS_VIEWS.map((kind) => ({ kind }) as const),
      { kind: "list", list: "reviews" },
    ];
    for (const view of views) expect(viewFromParam(viewToParam(view))).toEqual(view);
  });

  it("gives the settings and reports their own addresses", () => {
    expect(SETTINGS_VIEWS.map((kind) => viewHref({ kind }))).toEqual([
      "/admin?view=email",
      "/admin?view=account",
      "/admin?view=backups",
      "/admin?view=visits",
      "/admin?view=activity",
    ]);
    expect(viewHref({ kind: "content", group: "contact_info" })).toBe("/admin?view=content%3Acontact_info");
    expect(viewHref(DASHBOARD)).toBe("/admin");
    expect(viewHref({ kind: "list", list: "reviews" })).toBe("/admin?view=reviews");
  });

  it("falls back to the dashboard for anything unknown", () => {
    for (const param of [
      null,
      "",
      "content",
      "content:nope",
      "gallery:marble",
      "settings",
      "gallery:",
      "email:x",
      "Email",
      "Reviews",
      "reviews:x",
    ]) {
      expect(viewFromParam(param)).toEqual(DASHBOARD);
    }
  });

  it("names the dashboard button of a view", () => {
    expect(openerIdFor({ kind: "content", group: "contact_info" })).toBe("open-content-contact_info");
    expect(openerIdFor({ kind: "gallery", galleryType: "veneer" })).toBe("open-gallery-veneer");
    expect(openerIdFor({ kind: "submissions" })).toBe("open-submissions");
    expect(openerIdFor({ kind: "backups" })).toBe("open-backups");
    expect(openerIdFor(DASHBOARD)).toBeNull();
  });
});
