import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { InboxItem } from "~/contact/inbox";
import { toast } from "~/components/ui/use-toast";
import { NOTIFICATIONS_OFF_STATE, type NotificationState } from "~/notifications/notification-state";
import { SubmissionsView } from "./submissions-view";
import { deferred, json, mockFetch, renderWithClient } from "../test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const LIST = /^\/api\/admin\/contact-submissions\?/;

function item(id: string, overrides: Partial<InboxItem> = {}): InboxItem {
  return {
    id,
    name: `Visitor ${id}`,
    email: `v${id}@example.nz`,
    phone: null,
    message: `Message ${id}, long enough.`,
    submittedAt: "2024-01-01T02:00:00.000Z",
    cursor: `cursor-${id}`,
    readAt: null,
    reviewAskedAt: null,
    notification: NOTIFICATIONS_OFF_STATE,
    photos: [],
    ...overrides,
  };
}

describe("SubmissionsView", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
    vi.mocked(toast).mockClear();
  });

  it("says it is loading, then lists each submission with date, name, e-mail and phone links and the message", async () => {
    const list = deferred<Response>();
    const { calls } = mockFetch([{ method: "GET", path: LIST, respond: () => list.promise }]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    expect(screen.getByRole("heading", { level: 1, name: "Contact Form Submissions" })).toBeInTheDocument();
    expect(screen.getByText("Loading submissions...")).toBeInTheDocument();
    expect(calls[0]!.url).toBe("/api/admin/contact-submissions?limit=50");
    // Local times, so the expected text holds in any time zone.
    const newer = new Date(2024, 0, 1, 15, 0).toISOString();
    const older = new Date(2023, 5, 2, 9, 5).toISOString();
    list.resolve(
      json(200, [
        item("2", {
          name: "Aroha Smith",
          email: "aroha@example.co.nz",
          phone: "027 123 4567",
          message: "Line one\nLine two",
          submittedAt: newer,
        }),
        item("1", {
          name: "Tom",
          email: "tom@example.nz",
          message: "No phone here.",
          submittedAt: older,
          readAt: "2023-06-03T00:00:00.000Z",
        }),
      ]),
    );
    const items = await screen.findAllByRole("listitem");
    expect(items).toHaveLength(2);
    const [first, second] = items as [HTMLElement, HTMLElement];
    expect(first).toHaveTextContent("January 1st, 2024 at 3:00 PM");
    expect(first.querySelector("time")).toHaveAttribute("dateTime", newer);
    expect(within(first).getByRole("heading", { level: 2, name: "Aroha Smith" })).toBeInTheDocument();
    // Spec §2: each entry shows Name, Email, Phone if present and Message, each labelled.
    const labels = (entry: HTMLElement) => Array.from(entry.querySelectorAll("dt"), (dt) => dt.textContent);
    expect(labels(first)).toEqual(["Name", "Email", "Phone", "Message"]);
    expect(labels(second)).toEqual(["Name", "Email", "Message"]);
    expect(first.querySelector("dt + dd")).toHaveTextContent("Aroha Smith");
    expect(within(first).getByRole("link", { name: "aroha@example.co.nz" })).toHaveAttribute(
      "href",
      "mailto:aroha@example.co.nz",
    );
    expect(within(first).getByRole("link", { name: "027 123 4567" })).toHaveAttribute("href", "tel:0271234567");
    const message = within(first).getByText(/Line one/);
    expect(message.textContent).toBe("Line one\nLine two");
    expect(message.className).toContain("whitespace-pre-line");
    // The whole message, not clamped until it is opened.
    expect(message.className).not.toMatch(/line-clamp/);
    expect(within(first).getByText("New")).toBeInTheDocument();
    expect(within(second).queryByText("New")).toBeNull();
    expect(within(second).queryByText("Phone")).toBeNull();
    expect(first).toHaveTextContent("Notifications off");
    expect(within(second).queryByRole("link", { name: /^0/ })).toBeNull();
    expect(second).toHaveTextContent("June 2nd, 2023 at 9:05 AM");
    expect(second.querySelector("time")).toHaveAttribute("dateTime", older);
  });

  it("says when there are none", async () => {
    mockFetch([{ method: "GET", path: LIST, respond: () => json(200, []) }]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    expect(await screen.findByText("No contact submissions yet")).toBeInTheDocument();
  });

  it("marks nothing read by being shown: Mark as read does, and Mark as unread undoes it", async () => {
    const { calls } = mockFetch([
      {
        method: "GET",
        path: LIST,
        respond: () => json(200, [item("7", { message: "First line\nSecond line\nThird line\nFourth line" })]),
      },
      {
        method: "PATCH",
        path: "/api/admin/contact-submissions/7",
        respond: ({ body }) =>
          json(200, item("7", { readAt: (body as { read: boolean }).read ? "2024-01-02T00:00:00.000Z" : null })),
      },
    ]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    const entry = await screen.findByRole("article", { name: "Visitor 7" });
    expect(entry).toHaveTextContent("Fourth line");
    // Reply opens the mail app with the subject and the enquiry quoted (a 'mailto:' link's fields, encoded).
    const reply = new URL(within(entry).getByRole("link", { name: "Reply" }).getAttribute("href")!);
    expect(`${reply.protocol}${reply.pathname}`).toBe("mailto:v7@example.nz");
    expect(Object.fromEntries(reply.searchParams)).toEqual({
      subject: "Re: your enquiry to Cornerstone Stonemasonry",
      body: "\r\n\r\nOn January 1st, 2024 at 2:00 AM, Visitor 7 wrote:\r\n> First line\r\n> Second line\r\n> Third line\r\n> Fourth line",
    });
    expect(within(entry).getByText("New")).toBeInTheDocument();
    expect(calls.some((c) => c.method === "PATCH")).toBe(false);

    await userEvent.click(within(entry).getByRole("button", { name: "Mark as read" }));
    await waitFor(() => expect(screen.queryByText("New")).toBeNull());
    expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([{ read: true }]);

    await userEvent.click(screen.getByRole("button", { name: "Mark as unread" }));
    expect(await screen.findByText("New")).toBeInTheDocument();
    expect(calls.filter((c) => c.method === "PATCH").map((c) => c.body)).toEqual([{ read: true }, { read: false }]);
  });

  it("deletes only after a confirmation that names the sender", async () => {
    const { calls } = mockFetch([
      {
        method: "GET",
        path: LIST,
        respond: () => json(200, [item("3", { name: "Hemi Walker", readAt: "2024-01-02T00:00:00.000Z" }), item("4")]),
      },
      {
        method: "DELETE",
        path: "/api/admin/contact-submissions/3",
        respond: () => new Response(null, { status: 204 }),
      },
    ]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    const entry = await screen.findByRole("article", { name: "Hemi Walker" });
    await userEvent.click(within(entry).getByRole("button", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete the enquiry from Hemi Walker?" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);

    await userEvent.click(within(entry).getByRole("button", { name: "Delete" }));
    await userEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Delete enquiry" }));
    await waitFor(() => expect(screen.queryByText("Hemi Walker")).toBeNull());
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.url)).toEqual(["/api/admin/contact-submissions/3"]);
    expect(screen.getAllByRole("listitem")).toHaveLength(1);
    expect(toast).toHaveBeenCalledWith({
      title: "Enquiry deleted",
      description: "The enquiry from Hemi Walker was deleted.",
    });
  });

  it("loads 50 at a time, asking for the next page with the last item's cursor", { timeout: 40_000 }, async () => {
    const firstPage = Array.from({ length: 50 }, (_, i) => item(`a${i}`));
    const { calls } = mockFetch([
      {
        method: "GET",
        path: LIST,
        respond: ({ url }) => json(200, url.includes("before=") ? [item("b0"), item("b1")] : firstPage),
      },
    ]);
    const { container } = renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    // Plain selectors: role queries over 50 cards are slow in jsdom.
    const cards = () => container.querySelectorAll("ul > li");
    await waitFor(() => expect(cards()).toHaveLength(50), { timeout: 15_000 });
    fireEvent.click(screen.getByText("Load more"));
    await waitFor(() => expect(cards()).toHaveLength(52), { timeout: 15_000 });
    expect(calls.filter((c) => LIST.test(c.url)).map((c) => c.url)).toEqual([
      "/api/admin/contact-submissions?limit=50",
      "/api/admin/contact-submissions?limit=50&before=cursor-a49",
    ]);
    // A short page is the last one.
    expect(screen.queryByText("Load more")).toBeNull();
  });

  it("filters unread only", async () => {
    const { calls } = mockFetch([
      {
        method: "GET",
        path: LIST,
        respond: ({ url }) =>
          json(200, url.includes("unread=1") ? [] : [item("1", { readAt: "2024-01-02T00:00:00.000Z" })]),
      },
    ]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    await screen.findAllByRole("listitem");
    await userEvent.click(screen.getByRole("checkbox", { name: "Unread only" }));
    expect(await screen.findByText("No unread enquiries")).toBeInTheDocument();
    expect(calls.at(-1)!.url).toBe("/api/admin/contact-submissions?limit=50&unread=1");
  });

  it("shows each notification state, and Send again on a failure", async () => {
    // Midday on the test's clock: a retry 90 s away is today, shown as a time of day (near midnight
    // it would be tomorrow's, shown with its date).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(2026, 5, 15, 12, 0, 0));
    const now = new Date();
    const soon = new Date(now.getTime() + 90_000);
    const state = (s: Partial<NotificationState>): NotificationState => ({ ...NOTIFICATIONS_OFF_STATE, ...s });
    const retryTime = new Intl.DateTimeFormat("en-US", { hour: "numeric", minute: "2-digit", hour12: true }).format(
      soon,
    );
    const failedItem = item("f", {
      name: "Failed One",
      notification: state({ status: "failed", attempts: 28, lastError: "535 Authentication credentials invalid" }),
    });
    const { calls } = mockFetch([
      {
        method: "GET",
        path: LIST,
        respond: () =>
          json(200, [
            item("s", { notification: state({ status: "sent", attempts: 1, sentAt: now.toISOString() }) }),
            item("p", { notification: state({ status: "pending" }) }),
            item("r", {
              notification: state({
                status: "pending",
                attempts: 2,
                nextAttemptAt: soon.toISOString(),
                lastError: "connect ECONNREFUSED",
              }),
            }),
            item("d", {
              notification: state({ status: "pending", inDigest: true, nextAttemptAt: soon.toISOString() }),
            }),
            failedItem,
          ]),
      },
      {
        method: "POST",
        path: "/api/admin/contact-submissions/f/resend",
        respond: () => json(202, { ...failedItem, notification: state({ status: "pending" }) }),
      },
    ]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    const items = await screen.findAllByRole("listitem");
    expect(items[0]).toHaveTextContent("E-mail notification: Sent");
    expect(items[1]).toHaveTextContent("Sending…");
    expect(items[2]).toHaveTextContent(`Retrying at ${retryTime}`);
    // The mail server's words are for whoever runs the website: under the details.
    expect(
      within(items[2]!).getByText("The mail server answered: connect ECONNREFUSED").closest("details"),
    ).not.toHaveAttribute("open");
    expect(items[3]).toHaveTextContent(`In the hourly digest at ${retryTime}`);
    expect(items[4]).toHaveTextContent("Failed: the e-mail could not be sent");
    expect(
      within(items[4]!)
        .getByText("The mail server answered: 535 Authentication credentials invalid")
        .closest("details"),
    ).not.toHaveAttribute("open");
    for (const other of items.slice(0, 4))
      expect(within(other).queryByRole("button", { name: "Send again" })).toBeNull();

    await userEvent.click(within(items[4]!).getByRole("button", { name: "Send again" }));
    await waitFor(() => expect(screen.getAllByRole("listitem")[4]).toHaveTextContent("Sending…"));
    expect(calls.filter((c) => c.method === "POST").map((c) => c.url)).toEqual([
      "/api/admin/contact-submissions/f/resend",
    ]);
  });

  it("shows an enquiry's photos under its message, and opens them full-screen", async () => {
    const photos = [
      { n: 1, width: 1600, height: 1200 },
      { n: 2, width: 1200, height: 1600 },
    ];
    mockFetch([
      { method: "GET", path: LIST, respond: () => json(200, [item("9", { name: "Mere", photos }), item("8")]) },
    ]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    const entry = await screen.findByRole("article", { name: "Mere" });
    expect(Array.from(entry.querySelectorAll("dt"), (dt) => dt.textContent)).toEqual([
      "Name",
      "Email",
      "Message",
      "Photos",
    ]);
    const thumbnails = within(entry).getAllByRole("img", { name: /^Photo \d of 2 from Mere$/ });
    expect(thumbnails.map((img) => img.getAttribute("src"))).toEqual([
      "/api/admin/contact-submissions/9/photos/1?size=thumb",
      "/api/admin/contact-submissions/9/photos/2?size=thumb",
    ]);
    expect(within(screen.getByRole("article", { name: "Visitor 8" })).queryByText("Photos")).toBeNull();
    await userEvent.click(within(entry).getByRole("button", { name: "Photo 2 of 2 from Mere" }));
    const dialog = await screen.findByRole("dialog", { name: "Photos from Mere" });
    expect(within(dialog).getByRole("img")).toHaveAttribute(
      "src",
      "/api/admin/contact-submissions/9/photos/2?size=view",
    );
  });

  it("says under Photos how many photos the visitor sent could not be attached, with or without others", async () => {
    const photos = [{ n: 1, width: 1600, height: 1200 }];
    mockFetch([
      {
        method: "GET",
        path: LIST,
        respond: () =>
          json(200, [item("7", { name: "Hemi", photosNotAttached: 2 }), item("6", { photos, photosNotAttached: 1 })]),
      },
    ]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    const hemi = await screen.findByRole("article", { name: "Hemi" });
    expect(within(hemi).getByText("Photos")).toBeInTheDocument();
    expect(within(hemi).getByText("2 photos could not be attached.")).toBeInTheDocument();
    const other = screen.getByRole("article", { name: "Visitor 6" });
    expect(within(other).getAllByRole("img")).toHaveLength(1);
    expect(within(other).getByText("1 photo could not be attached.")).toBeInTheDocument();
  });

  it("links Export CSV to the download", async () => {
    mockFetch([{ method: "GET", path: LIST, respond: () => json(200, []) }]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    const link = screen.getByRole("link", { name: "Export CSV" });
    expect(link).toHaveAttribute("href", "/api/admin/contact-submissions/export.csv");
    expect(link).toHaveAttribute("download");
  });
});
