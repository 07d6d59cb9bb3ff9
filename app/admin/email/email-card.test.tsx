import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import type { NotificationsOverview } from "~/notifications/notification-state";
import { EmailCard } from "./email-card";
import { json, mockFetch, renderWithClient } from "../test-helpers";
import { UnreadCount } from "../enquiries/unread-count";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const STATUS = "/api/admin/notifications/status";
const on: NotificationsOverview = {
  enabled: true,
  recipient: "mark@example.nz",
  lastAttempt: { at: "2026-03-01T00:00:00.000Z", ok: true, error: null },
  failed: 0,
};

describe("the E-mail view", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.mocked(toast).mockClear();
  });

  it("says in plain words that e-mail is off, with the settings under the details, and no test button", async () => {
    mockFetch([
      { method: "GET", path: STATUS, respond: () => json(200, { ...on, enabled: false, lastAttempt: null }) },
    ]);
    renderWithClient(<EmailCard onBack={vi.fn()} />);
    const notice = await screen.findByRole("region", { name: "E-mail notifications are off" });
    expect(notice.querySelector("p")).toHaveTextContent(
      /^Nobody is e-mailed about new enquiries\. Check this page for them, or ask whoever runs your website to turn on e-mail\.$/,
    );
    const details = within(notice).getByText("Details for whoever runs your website").closest("details")!;
    expect(details).toHaveTextContent("SMTP_URL and MAIL_FROM are not set");
    expect(screen.queryByRole("button", { name: "Send test e-mail" })).toBeNull();
  });

  it("says where mail goes when all is well, and a test e-mail reports success", async () => {
    const { calls } = mockFetch([
      { method: "GET", path: STATUS, respond: () => json(200, on) },
      { method: "POST", path: "/api/admin/notifications/test", respond: () => json(200, { ok: true }) },
    ]);
    renderWithClient(<EmailCard onBack={vi.fn()} />);
    const card = await screen.findByRole("region", { name: "E-mail Notifications" });
    expect(await within(card).findByText(/Each new enquiry is e-mailed to/)).toHaveTextContent(
      "Each new enquiry is e-mailed to mark@example.nz.",
    );
    expect(within(card).queryByRole("region")).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Send test e-mail" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Test e-mail sent to mark@example.nz");
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(1);
  });

  it("keeps a notice up while the last attempt failed, with the reason, and shows the SMTP server's exact error of a test", async () => {
    mockFetch([
      {
        method: "GET",
        path: STATUS,
        respond: () =>
          json(200, {
            ...on,
            lastAttempt: {
              at: on.lastAttempt!.at,
              ok: false,
              error: "Invalid login: 535 Authentication credentials invalid",
            },
            failed: 2,
          }),
      },
      {
        method: "POST",
        path: "/api/admin/notifications/test",
        respond: () => json(502, { message: "Invalid login: 535 Authentication credentials invalid" }),
      },
    ]);
    renderWithClient(<EmailCard onBack={vi.fn()} />);
    const notice = await screen.findByRole("region", { name: "E-mail notifications are failing" });
    expect(within(notice).getByRole("alert")).toHaveTextContent(
      "The last e-mail about an enquiry could not be sent. Enquiries are still saved here. Ask whoever runs your website to look at it.",
    );
    expect(within(notice).getByRole("alert")).not.toHaveTextContent("535");
    expect(notice).toHaveTextContent("failed: Invalid login: 535 Authentication credentials invalid");
    expect(notice).toHaveTextContent("2 gave up");
    expect(notice).toHaveTextContent("SMTP_URL");
    await userEvent.click(screen.getByRole("button", { name: "Send test e-mail" }));
    // The owner reads a plain sentence; the SMTP server's exact answer is for whoever runs the website.
    const failed = await screen.findByText(
      "The test e-mail could not be sent. Ask whoever runs your website to look at it.",
    );
    expect(failed).toHaveRole("alert");
    const answer = screen.getByText("The mail server answered: Invalid login: 535 Authentication credentials invalid");
    expect(answer.closest("details")).not.toHaveAttribute("open");
    expect(answer.closest("details")).toHaveTextContent(/^Details for whoever runs your website/);
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Test e-mail failed",
        description: "The test e-mail could not be sent. Ask whoever runs your website to look at it.",
        variant: "destructive",
      }),
    );
  });
});

describe("UnreadCount", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows how many enquiries are unread", async () => {
    mockFetch([
      {
        method: "GET",
        path: "/api/admin/contact-submissions/summary",
        respond: () => json(200, { total: 9, unread: 3 }),
      },
    ]);
    renderWithClient(<UnreadCount />);
    expect(await screen.findByText("unread enquiries")).toBeInTheDocument();
    expect(screen.getByTestId("unread-count")).toHaveTextContent("3 unread enquiries");
  });

  it("says when none are", async () => {
    mockFetch([
      {
        method: "GET",
        path: "/api/admin/contact-submissions/summary",
        respond: () => json(200, { total: 9, unread: 0 }),
      },
    ]);
    renderWithClient(<UnreadCount />);
    expect(await screen.findByText("No unread enquiries")).toBeInTheDocument();
  });
});
