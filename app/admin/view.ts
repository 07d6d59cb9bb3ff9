import { ownerListByKey } from "~/content/lists";
import { PAGE_GROUPS, type PageGroup } from "~/content/sections";
import { isGalleryType, type GalleryType } from "~/galleries/gallery";

/** The "Settings and reports" sub-views, each opened from its row on the dashboard. */
export const SETTINGS_VIEWS = ["email", "account", "backups", "visits", "activity"] as const;
export type SettingsViewKind = (typeof SETTINGS_VIEWS)[number];

const isSettingsView = (value: string): value is SettingsViewKind =>
  (SETTINGS_VIEWS as readonly string[]).includes(value);

/** Which admin screen shows (spec §4): the dashboard or one sub-view. */
export type AdminView =
  | { kind: "dashboard" }
  | { kind: "content"; group: PageGroup }
  | { kind: "gallery"; galleryType: GalleryType }
  | { kind: "submissions" }
  | { kind: SettingsViewKind }
  /** A list the owner edits (app/content/lists.ts): `?view=reviews`. */
  | { kind: "list"; list: string };

export const DASHBOARD: AdminView = { kind: "dashboard" };

/** The `?view=` value of a view: "content:homepage", "gallery:veneer", "submissions", "email"; none for the dashboard. */
export function viewToParam(view: AdminView): string | null {
  switch (view.kind) {
    case "dashboard":
      return null;
    case "content":
      return `content:${view.group}`;
    case "gallery":
      return `gallery:${view.galleryType}`;
    case "list":
      return view.list;
    default:
      return view.kind;
  }
}

/** The view a `?view=` value names; anything unknown is the dashboard. */
export function viewFromParam(param: string | null | undefined): AdminView {
  if (!param) return DASHBOARD;
  if (param === "submissions") return { kind: "submissions" };
  if (isSettingsView(param)) return { kind: param };
  if (ownerListByKey(param)) return { kind: "list", list: param };
  const [kind, value = ""] = param.split(":", 2);
  if (kind === "content" && (PAGE_GROUPS as readonly string[]).includes(value)) {
    return { kind: "content", group: value as PageGroup };
  }
  if (kind === "gallery" && isGalleryType(value)) return { kind: "gallery", galleryType: value };
  return DASHBOARD;
}

/** The address of a view, relative to the admin: "/admin?view=email". */
export function viewHref(view: AdminView): string {
  const param = viewToParam(view);
  return param ? `/admin?${new URLSearchParams({ view: param })}` : "/admin";
}

/** The dashboard button or link that opens a view (focus returns there on Back). */
export function openerIdFor(view: AdminView): string | null {
  const param = viewToParam(view);
  return param ? `open-${param.replace(":", "-")}` : null;
}
