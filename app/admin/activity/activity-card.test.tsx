import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ActivityEntry, ActivityPage } from "~/activity/activity-kinds";
import { ActivityCard } from "./activity-card";
import { json, mockFetch, renderWithClient } from "../test-helpers";

afterEach(() => {
  vi.unstubAllGlobals();
});

const entry = (id: string, overrides: Partial<ActivityEntry> = {}): ActivityEntry => ({
  id,
  at: "2026-06-01T09:00:00.000Z",
  kind: "text.saved",
  outcome: "success",
  summary: "Saved the text 'Hero Title'",
  browser: "Chrome on an Android phone",
  network: "198.51.100.0/24",
  place: "usual",
  count: 1,
  security: false,
  ...overrides,
});

const PASSKEY = entry("p", {
  kind: "sign-in.passkey",
  summary: "Signed in with passkey 'Mark's iPhone'",
  security: true,
  place: "new",
});
const DELETED = entry("d", { kind: "image.deleted", summary: "Deleted 1 photo from Hard Landscaping" });
const REFUSED = entry("r", {
  kind: "sign-in.locked",
  outcome: "refused",
  summary: "Sign-in refused: too many attempts (40 times)",
  count: 40,
  security: true,
});

function renderCard(pages: (url: URL) => ActivityPage) {
  const { calls } = mockFetch([
    {
      method: "GET",
      path: /^\/api\/admin\/activity\?/,
      respond: ({ url }) => json(200, pages(new URL(url, "http://127.0.0.1"))),
    },
  ]);
  renderWithClient(<ActivityCard onBack={vi.fn()} />);
  return { card: screen.getByRole("region", { name: "Recent activity" }), calls };
}

describe("the Activity view", () => {
  it("lists events in the owner's words, newest first, with when, a new or usual place and the device; networks only under the details", async () => {
    const { card } = renderCard(() => ({ entries: [PASSKEY, REFUSED, DELETED], page: 1, pageSize: 50, total: 3 }));
    const list = await within(card).findByRole("list", { name: "Recent activity, newest first" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((item) => item.firstElementChild!.textContent)).toEqual([
      "Signed in with passkey 'Mark's iPhone'",
      "RefusedSign-in refused: too many attempts (40 times)",
      "Deleted 1 photo from Hard Landscaping",
    ]);
    expect(items[0]).toHaveTextContent(
      /^Signed in with passkey 'Mark's iPhone'June 1st, 2026 at \d{1,2}:00 [AP]M · from a new place · Chrome on an Android phone$/,
    );
    expect(items[2]).toHaveTextContent(/ · from a usual place · Chrome on an Android phone$/);
    expect(list).not.toHaveTextContent("198.51.100");
    const details = within(card).getByText("Details for whoever runs your website").closest("details")!;
    expect(details).not.toHaveAttribute("open");
    expect(within(details).getAllByRole("listitem")[0]).toHaveTextContent(
      /Signed in with passkey 'Mark's iPhone': 198\.51\.100\.0\/24$/,
    );
    // One page only: no paging buttons.
    expect(within(card).queryByRole("navigation", { name: "Activity pages" })).toBeNull();
  });

  it("shows security events only when asked, from the first page", async () => {
    const { card, calls } = renderCard((url) =>
      url.searchParams.get("filter") === "security"
        ? { entries: [PASSKEY], page: 1, pageSize: 50, total: 1 }
        : { entries: [DELETED], page: Number(url.searchParams.get("page")), pageSize: 50, total: 120 },
    );
    await within(card).findByText("Deleted 1 photo from Hard Landscaping");
    await userEvent.click(within(card).getByRole("button", { name: "Older" }));
    expect(await within(card).findByText("Page 2 of 3")).toBeInTheDocument();

    await userEvent.click(within(card).getByRole("checkbox", { name: "Security events only" }));
    expect(await within(card).findByText("Signed in with passkey 'Mark's iPhone'")).toBeInTheDocument();
    expect(within(card).queryByText("Deleted 1 photo from Hard Landscaping")).toBeNull();
    expect(calls.map((call) => call.url)).toEqual([
      "/api/admin/activity?page=1",
      "/api/admin/activity?page=2",
      "/api/admin/activity?page=1&filter=security",
    ]);
  });

  it("pages 50 at a time with Newer and Older", async () => {
    const { card } = renderCard((url) => ({
      entries: [entry(`e${url.searchParams.get("page")}`)],
      page: Number(url.searchParams.get("page")),
      pageSize: 50,
      total: 101,
    }));
    expect(await within(card).findByText("Page 1 of 3")).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Newer" })).toBeDisabled();
    await userEvent.click(within(card).getByRole("button", { name: "Older" }));
    await userEvent.click(await within(card).findByRole("button", { name: "Older" }));
    expect(await within(card).findByText("Page 3 of 3")).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Older" })).toBeDisabled();
  });

  it("says when there is nothing yet, and offers Retry when the log cannot be loaded", async () => {
    const empty = renderCard(() => ({ entries: [], page: 1, pageSize: 50, total: 0 }));
    expect(await within(empty.card).findByText("Nothing yet.")).toBeInTheDocument();
    vi.unstubAllGlobals();
    document.body.innerHTML = "";

    mockFetch([{ method: "GET", path: /^\/api\/admin\/activity\?/, respond: () => json(500, { message: "broken" }) }]);
    renderWithClient(<ActivityCard onBack={vi.fn()} />);
    const card = screen.getByRole("region", { name: "Recent activity" });
    expect(await within(card).findByRole("alert")).toHaveTextContent("The activity could not be loaded.");
    expect(within(card).getByRole("button", { name: /Retry/ })).toBeInTheDocument();
  });
});
