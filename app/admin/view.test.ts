import { describe, expect, it } from "vitest";
import { PAGE_GROUPS } from "~/content/sections";
import { GALLERY_TYPES } from "~/galleries/gallery";
import { DASHBOARD, openerIdFor, viewFromParam, viewToParam, type AdminView } from "./view";

describe("admin view parameter", () => {
  it("round-trips every view", () => {
    const views: AdminView[] = [
      DASHBOARD,
      { kind: "submissions" },
      ...PAGE_GROUPS.map((group) => ({ kind: "content", group }) as const),
      ...GALLERY_TYPES.map((galleryType) => ({ kind: "gallery", galleryType }) as const),
    ];
    for (const view of views) expect(viewFromParam(viewToParam(view))).toEqual(view);
  });

  it("falls back to the dashboard for anything unknown", () => {
    for (const param of [null, "", "content", "content:nope", "gallery:marble", "settings", "gallery:"]) {
      expect(viewFromParam(param)).toEqual(DASHBOARD);
    }
  });

  it("names the dashboard button of a view", () => {
    expect(openerIdFor({ kind: "content", group: "contact_info" })).toBe("open-content-contact_info");
    expect(openerIdFor({ kind: "gallery", galleryType: "veneer" })).toBe("open-gallery-veneer");
    expect(openerIdFor({ kind: "submissions" })).toBe("open-submissions");
    expect(openerIdFor(DASHBOARD)).toBeNull();
  });
});
