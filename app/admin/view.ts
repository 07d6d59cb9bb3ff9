import { PAGE_GROUPS, type PageGroup } from "~/content/sections";
import { isGalleryType, type GalleryType } from "~/galleries/gallery";

/** Which admin screen shows (spec §4): the dashboard or one sub-view. */
export type AdminView =
  | { kind: "dashboard" }
  | { kind: "content"; group: PageGroup }
  | { kind: "gallery"; galleryType: GalleryType }
  | { kind: "submissions" };

export const DASHBOARD: AdminView = { kind: "dashboard" };

/** The `?view=` value of a view: "content:homepage", "gallery:veneer", "submissions"; none for the dashboard. */
export function viewToParam(view: AdminView): string | null {
  switch (view.kind) {
    case "dashboard":
      return null;
    case "content":
      return `content:${view.group}`;
    case "gallery":
      return `gallery:${view.galleryType}`;
    case "submissions":
      return "submissions";
  }
}

/** The view a `?view=` value names; anything unknown is the dashboard. */
export function viewFromParam(param: string | null | undefined): AdminView {
  if (!param) return DASHBOARD;
  if (param === "submissions") return { kind: "submissions" };
  const [kind, value = ""] = param.split(":", 2);
  if (kind === "content" && (PAGE_GROUPS as readonly string[]).includes(value)) {
    return { kind: "content", group: value as PageGroup };
  }
  if (kind === "gallery" && isGalleryType(value)) return { kind: "gallery", galleryType: value };
  return DASHBOARD;
}

/** The dashboard button that opens a view (focus returns there on Back). */
export function openerIdFor(view: AdminView): string | null {
  const param = viewToParam(view);
  return param ? `open-${param.replace(":", "-")}` : null;
}
