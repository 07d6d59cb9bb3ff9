import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import type { NotificationsOverview } from "~/notifications/notification-state";
import { NotificationsPanel } from "./notifications-panel";
import { json, mockFetch, renderWithClient } from "./test-helpers";
import { UnreadCount } from "./unread-count";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const STATUS = "/api/admin/notifications/status";
const on: NotificationsOverview = { enabled: true, recipient: "mark@example.nz", lastAttempt: { at: "2026-03-01T00:00:00.000Z", ok: true, error: null }, failed: 0 };

describe("NotificationsPanel", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.mocked(toast).mockClear();
  });

  it("says notifications are off and how to turn them on, with no test button", async () => {
    mockFetch([{ method: "GET", path: STATUS, respond: () => json(200, { ...on, enabled: false, lastAttempt: null }) }]);
    renderWithClient(<NotificationsPanel />);
    const notice = await screen.findByRole("region", { name: "E-mail notifications are off" });
    expect(notice).toHaveTextContent("set SMTP_URL and MAIL_FROM");
    expect(screen.queryByRole("button", { name: "Send test e-mail" })).toBeNull();
  });

  it("says where mail goes when all is well, and a test e-mail reports success", async () => {
    const { calls } = mockFetch([
      { method: "GET", path: STATUS, respond: () => json(200, on) },
      { method: "POST", path: "/api/admin/notifications/test", respond: () => json(200, { ok: true }) },
    ]);
    renderWithClient(<NotificationsPanel />);
    expect(await screen.findByRole("region", { name: "E-mail notifications are on" })).toHaveTextContent("mark@example.nz");
    await userEvent.click(screen.getByRole("button", { name: "Send test e-mail" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Test e-mail sent to mark@example.nz");
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(1);
  });

  it("keeps a notice up while the last attempt failed, with the reason, and shows the SMTP server's exact error of a test", async () => {
    mockFetch([
      { method: "GET", path: STATUS, respond: () => json(200, { ...on, lastAttempt: { at: on.lastAttempt!.at, ok: false, error: "Invalid login: 535 Authentication credentials invalid" }, failed: 2 }) },
      { method: "POST", path: "/api/admin/notifications/test", respond: () => json(502, { message: "Invalid login: 535 Authentication credentials invalid" }) },
    ]);
    renderWithClient(<NotificationsPanel />);
    const notice = await screen.findByRole("region", { name: "E-mail notifications are failing" });
    expect(notice).toHaveTextContent("failed: Invalid login: 535 Authentication credentials invalid");
    expect(notice).toHaveTextContent("2 gave up");
    expect(notice).toHaveTextContent("SMTP_URL");
    await userEvent.click(screen.getByRole("button", { name: "Send test e-mail" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Test e-mail failed: Invalid login: 535 Authentication credentials invalid");
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({ title: "Test e-mail failed", description: "Invalid login: 535 Authentication credentials invalid", variant: "destructive" }),
    );
  });
});

describe("UnreadCount", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows how many enquiries are unread", async () => {
    mockFetch([{ method: "GET", path: "/api/admin/contact-submissions/summary", respond: () => json(200, { total: 9, unread: 3 }) }]);
    renderWithClient(<UnreadCount />);
    expect(await screen.findByText("unread enquiries")).toBeInTheDocument();
    expect(screen.getByTestId("unread-count")).toHaveTextContent("3 unread enquiries");
  });

  it("says when none are", async () => {
    mockFetch([{ method: "GET", path: "/api/admin/contact-submissions/summary", respond: () => json(200, { total: 9, unread: 0 }) }]);
    renderWithClient(<UnreadCount />);
    expect(await screen.findByText("No unread enquiries")).toBeInTheDocument();
  });
});
