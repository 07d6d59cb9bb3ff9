import { SERVICES } from "~/identity";

/**
 * The lists the owner grows: validation, routes, admin editor, rows, backups and the activity log all follow
 * from an entry here (docs/ARCHITECTURE.md, "Adding a list the owner edits"; decision 0071).
 */

/** One field of an item: text the owner types, at most `max` characters. */
export type ListField = {
  label: string;
  hint?: string;
  max: number;
  required?: boolean;
  /** Several lines (a textarea in the editor). */
  multiline?: boolean;
  /** One of these, exactly (a choice in the editor). */
  choices?: readonly string[];
  /** "month": YYYY-MM; "https": an https:// address. */
  format?: "month" | "https";
};

export type OwnerList<F extends string = string> = {
  /** In its addresses (/api/reviews, /api/admin/reviews, /admin?view=reviews) and on its stored rows. */
  key: string;
  /** The dashboard card's title and the view's heading. */
  title: string;
  description: string;
  /** The card's one button. */
  manage: string;
  /** One item, in the admin's words ("review"): its buttons, toasts and the activity log. */
  item: string;
  fields: Record<F, ListField>;
  /** The field an item is named by in the admin. */
  nameField: F;
  /** The public pages that show the list, with how many items each shows at most (in the owner's order). */
  shownOn: Readonly<Record<string, number>>;
};

/** Any list holds at most this many items: the owner's list stays a list, and a page a page. */
export const MAX_LIST_ITEMS = 100;

export const REVIEWS = {
  key: "reviews",
  title: "Customer Reviews",
  description: "Shown on the home and contact pages.",
  manage: "Manage Reviews",
  item: "review",
  fields: {
    quote: { label: "What the customer said", max: 600, required: true, multiline: true },
    name: { label: "Name", hint: 'As the customer agreed to show it, e.g. "Sarah K."', max: 80, required: true },
    town: { label: "Town", max: 80 },
    service: { label: "Job", max: 40, choices: SERVICES.map((service) => service.name) },
    month: { label: "Month", hint: "When the job was done", max: 7, format: "month" },
    link: {
      label: "Link to the original",
      hint: "Google, Builderscrack, NoCowboys, Facebook…",
      max: 500,
      format: "https",
    },
  },
  nameField: "name",
  shownOn: { "/": 3, "/contact": 1 },
} as const satisfies OwnerList<"quote" | "name" | "town" | "service" | "month" | "link">;

/** Every list, in the dashboard's order. */
export const OWNER_LISTS: readonly OwnerList[] = [REVIEWS];

export function ownerListByKey(key: string): OwnerList | undefined {
  return OWNER_LISTS.find((list) => list.key === key);
}

/** An item as the public API and the pages see it: its id and every field ("" when not given). */
export type ListItem<L extends OwnerList> = { id: string } & Record<keyof L["fields"] & string, string>;
/** As the admin sees it, hidden ones too. */
export type AdminListItem<L extends OwnerList> = ListItem<L> & { hidden: boolean };

export const fieldNamesOf = (list: OwnerList) => Object.keys(list.fields);
