/**
 * What the security log records (decision 0054) and how each record reads; shared with the dashboard, so no
 * server imports. A new event needs its kind in ACTIVITY_KINDS and its words in describeActivity.
 */
export const ACTIVITY_KINDS = {
  // Sign-ins and lock-outs
  "sign-in.password": "security",
  "sign-in.passkey": "security",
  "sign-in.two-step": "security",
  /** A sign-in refused by a limit without checking anything (429): folded per hour. */
  "sign-in.locked": "security",
  // The account
  "account.password-changed": "security",
  "account.signed-out-everywhere": "security",
  "two-step.turned-on": "security",
  "two-step.turned-off": "security",
  "two-step.codes-renewed": "security",
  "passkey.added": "security",
  "passkey.removed": "security",
  // Changes to the site
  "text.saved": "site",
  "text.restored": "site",
  "text.reset": "site",
  "image.uploaded": "site",
  "image.captioned": "site",
  "image.reordered": "site",
  "image.deleted": "site",
  "enquiry.deleted": "site",
  // A list the owner edits (app/content/lists.ts): a review added, changed, hidden or shown, reordered, deleted
  "list.added": "site",
  "list.changed": "site",
  "list.reordered": "site",
  "list.deleted": "site",
  // Whole-site copies: security events too (a backup holds everything)
  "backup.downloaded": "security",
  "backup.restored": "security",
} as const satisfies Record<string, "security" | "site">;

export type ActivityKind = keyof typeof ACTIVITY_KINDS;

/** The filter "Security events only" shows these: sign-ins, the account, and whole-site copies. */
export const SECURITY_KINDS = (Object.keys(ACTIVITY_KINDS) as ActivityKind[]).filter(
  (kind) => ACTIVITY_KINDS[kind] === "security",
);

/** success: it happened; failure: refused after a check (a wrong password); refused: turned away unchecked (429). */
export type ActivityOutcome = "success" | "failure" | "refused";

/** The few words a record needs beyond its kind. Each is short text the owner may read. */
export type ActivityDetail = {
  /** A passkey's name ("Mark's iPhone"). */
  passkey?: string;
  /** A text section's title ("Hero Title"). */
  section?: string;
  /** A gallery's title ("Hard Landscaping"). */
  gallery?: string;
  /** A list's title ("Customer Reviews") and one item of it in words ("review"); never an item's own text. */
  list?: string;
  item?: string;
  /** How many photos or enquiries. */
  count?: number;
  /** A backup archive's file name. */
  file?: string;
  /** "server": done on the server (npm run admin:password, ADMIN_PASSWORD_RESET), not in the dashboard. */
  via?: "server";
};

/** One record as the API sends it. */
export type ActivityEntry = {
  id: string;
  /** ISO-8601; for a folded record, the latest attempt. */
  at: string;
  kind: ActivityKind;
  outcome: ActivityOutcome;
  /** In the owner's words: "Signed in with passkey 'Mark's iPhone'". */
  summary: string;
  /** "Chrome on an Android phone", or null when no browser was involved (a restore from the command line). */
  browser: string | null;
  /** "198.51.100.0/24" or "2001:db8:1::/48": for whoever runs the website, not the owner's list. */
  network: string | null;
  /** "usual": a sign-in succeeded from this network in the USUAL_PLACE_DAYS before; null: no address. */
  place: "new" | "usual" | null;
  /** How many attempts the record stands for (more than 1 only for refused attempts). */
  count: number;
  security: boolean;
};

/** How far back a successful sign-in makes a network "a usual place". */
export const USUAL_PLACE_DAYS = 90;

/** The kinds that are a sign-in (a successful one makes its network a usual place). */
export const SIGN_IN_KINDS = [
  "sign-in.password",
  "sign-in.passkey",
  "sign-in.two-step",
] as const satisfies readonly ActivityKind[];

export type ActivityPage = { entries: ActivityEntry[]; page: number; pageSize: number; total: number };

export function isSecurityKind(kind: ActivityKind): boolean {
  return ACTIVITY_KINDS[kind] === "security";
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
const quoted = (text: string | undefined) => (text ? ` '${text}'` : "");
const inGallery = (detail: ActivityDetail) => (detail.gallery ? ` in ${detail.gallery}` : "");
const anItem = (detail: ActivityDetail) => {
  const item = detail.item ?? "item";
  return `${/^[aeiou]/i.test(item) ? "an" : "a"} ${item}`;
};
const times = (count: number) => (count > 1 ? ` (${count} times)` : "");

/** The record in the owner's words. */
export function describeActivity(
  kind: ActivityKind,
  outcome: ActivityOutcome,
  detail: ActivityDetail,
  count = 1,
): string {
  const failed = outcome !== "success";
  const photos = plural(detail.count ?? 1, "photo", "photos");
  switch (kind) {
    case "sign-in.password":
      return failed ? "Failed sign-in: wrong username or password" : "Signed in with password";
    case "sign-in.passkey":
      return failed ? "Failed sign-in with a passkey" : `Signed in with passkey${quoted(detail.passkey)}`;
    case "sign-in.two-step":
      return failed ? "Failed sign-in: wrong authentication code" : "Signed in with password and authentication code";
    case "sign-in.locked":
      return `Sign-in refused: too many attempts${times(count)}`;
    case "account.password-changed":
      if (failed) return "Password change refused: wrong current password";
      return detail.via === "server" ? "Changed the password on the server" : "Changed the password";
    case "account.signed-out-everywhere":
      return "Signed out everywhere";
    case "two-step.turned-on":
      return "Turned on two-step verification";
    case "two-step.turned-off":
      return detail.via === "server"
        ? "Turned off two-step verification and removed every passkey on the server"
        : "Turned off two-step verification";
    case "two-step.codes-renewed":
      return "Made new recovery codes";
    case "passkey.added":
      return `Added passkey${quoted(detail.passkey)}`;
    case "passkey.removed":
      return `Removed passkey${quoted(detail.passkey)}`;
    case "text.saved":
      return `Saved the text${quoted(detail.section)}`;
    case "text.restored":
      return `Restored an earlier version of${quoted(detail.section) || " a text"}`;
    case "text.reset":
      return `Reset${quoted(detail.section) || " a text"} to the original wording`;
    case "image.uploaded":
      return `Uploaded ${photos} to ${detail.gallery ?? "a gallery"}`;
    case "image.captioned":
      return `Changed a photo's caption${inGallery(detail)}`;
    case "image.reordered":
      return `Reordered the photos${inGallery(detail)}`;
    case "image.deleted":
      return `Deleted ${photos} from ${detail.gallery ?? "a gallery"}`;
    case "enquiry.deleted":
      // Never the sender's name: a deleted enquiry leaves nothing personal behind.
      return `Deleted ${plural(detail.count ?? 1, "enquiry", "enquiries")}`;
    case "list.added":
      return `Added ${anItem(detail)}`;
    case "list.changed":
      return `Changed ${anItem(detail)}`;
    case "list.reordered":
      return `Reordered ${detail.list ?? "a list"}`;
    case "list.deleted":
      return `Deleted ${anItem(detail)}`;
    case "backup.downloaded":
      return "Downloaded a backup";
    case "backup.restored":
      return detail.file ? `Restored the site from ${detail.file}` : "Restored the site from a backup";
  }
}
