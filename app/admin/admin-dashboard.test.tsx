import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SecuritySummary } from "~/auth/security-summary";
import { toast } from "~/components/ui/use-toast";
import { AdminApp } from "./admin-app";
import { deferred, json, mockFetch } from "./test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const USER = { id: "u1", username: "admin" };
const summary = (temporaryPassword: boolean): SecuritySummary => ({
  failedSignInsBeforeThisSession: {
    failedAttempts: 0,
    addresses: 0,
    moreAddresses: false,
    firstFailedAt: null,
    lastFailedAt: null,
  },
  temporaryPassword,
});

beforeEach(() => {
  window.history.replaceState(null, "", "/admin");
  window.scrollTo = vi.fn() as typeof window.scrollTo;
});
afterEach(() => vi.unstubAllGlobals());

async function renderDashboard(temporaryPassword = false) {
  let temporary = temporaryPassword;
  const { calls } = mockFetch([
    { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
    { method: "GET", path: "/api/admin/security/summary", respond: () => json(200, summary(temporary)) },
    {
      method: "POST",
      path: "/api/admin/password",
      respond: () => {
        temporary = false;
        return json(200, { message: "Password changed." });
      },
    },
  ]);
  render(<AdminApp navigate={vi.fn()} />);
  await screen.findByRole("heading", { level: 1, name: "Website Management" });
  return { calls };
}

describe("the dashboard: the spec's three cards, then Settings and reports", () => {
  it("shows the three cards, then one card per list the owner edits, then one row per sub-view, each a link to its own address with its status", async () => {
    await renderDashboard();
    const cards = screen.getAllByRole("heading", { level: 2 }).map((heading) => heading.textContent);
    expect(cards).toEqual([
      "Edit Website Text",
      "Manage Photo Galleries",
      "Contact Form Submissions",
      "Customer Reviews",
      "Settings and reports",
    ]);
    expect(within(screen.getByRole("region", { name: "Customer Reviews" })).getAllByRole("button")).toHaveLength(1);
    const list = screen.getByRole("region", { name: "Settings and reports" });
    const rows = within(list).getAllByRole("link");
    expect(rows.map((row) => row.getAttribute("href"))).toEqual([
      "/admin?view=email",
      "/admin?view=account",
      "/admin?view=backups",
      "/admin?view=visits",
      "/admin?view=activity",
    ]);
    // Each row's name is its label, then its status (checking until its figures arrive).
    await waitFor(() => expect(rows[4]).toHaveAccessibleName("Activity No failed sign-ins"));
    expect(rows[0]).toHaveAccessibleName(/^E-mail /);
    expect(screen.queryByRole("navigation", { name: "Dashboard sections" })).toBeNull();
    expect(screen.queryByRole("link", { name: "Back to top" })).toBeNull();
  });

  it("a row that needs attention has a mark and says why", async () => {
    mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
      { method: "GET", path: "/api/admin/security/summary", respond: () => json(200, summary(false)) },
      {
        method: "GET",
        path: "/api/admin/notifications/status",
        respond: () => json(200, { enabled: false, recipient: null, lastAttempt: null, failed: 0 }),
      },
    ]);
    render(<AdminApp navigate={vi.fn()} />);
    const email = await screen.findByRole("link", { name: /^E-mail/ });
    await waitFor(() => expect(email).toHaveAccessibleName("E-mail Needs attention: Off: enquiries are not e-mailed"));
    expect(email).toHaveAttribute("data-attention", "warning");
    expect(screen.getByRole("link", { name: /^Activity/ })).not.toHaveAttribute("data-attention");
    // The notice that needs the owner is on the dashboard too, above the cards.
    expect(screen.getByRole("region", { name: "E-mail notifications are off" })).toBeInTheDocument();
  });

  it("is busy until its notices' first answers are in, since they push the cards down", async () => {
    const emailStatus = deferred<Response>();
    mockFetch([
      { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
      { method: "GET", path: "/api/admin/security/summary", respond: () => json(200, summary(false)) },
      { method: "GET", path: "/api/admin/notifications/status", respond: () => emailStatus.promise },
    ]);
    render(<AdminApp navigate={vi.fn()} />);
    const heading = await screen.findByRole("heading", { level: 1, name: "Website Management" });
    const dashboard = heading.closest("[class~='space-y-5']")!;
    expect(dashboard).toHaveAttribute("aria-busy", "true");
    emailStatus.resolve(json(200, { enabled: false, recipient: null, lastAttempt: null, failed: 0 }));
    await screen.findByRole("region", { name: "E-mail notifications are off" });
    await waitFor(() => expect(dashboard).not.toHaveAttribute("aria-busy"));
  });

  it("opens a row's sub-view in place at its address, with Back to Dashboard returning focus to the row", async () => {
    await renderDashboard();
    const row = screen.getByRole("link", { name: /^Activity/ });
    await userEvent.click(row);
    expect(await screen.findByRole("heading", { level: 1, name: "Recent activity" })).toHaveFocus();
    expect(window.location.search).toBe("?view=activity");
    expect(screen.queryByRole("heading", { name: "Website Management" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
    await waitFor(() => expect(screen.getByRole("link", { name: /^Activity/ })).toHaveFocus());
  });
});

describe("the temporary-password banner", () => {
  it("is not shown once the password has been changed", async () => {
    const { calls } = await renderDashboard(false);
    await waitFor(() => expect(calls.some((c) => c.url === "/api/admin/security/summary")).toBe(true));
    await screen.findByRole("link", { name: "Activity No failed sign-ins" });
    expect(screen.queryByText(/temporary password/)).toBeNull();
  });

  it("asks to change the temporary password, opens Change Password in the Account view, and goes once it is changed", async () => {
    await renderDashboard(true);
    const banner = await screen.findByRole("region", { name: "Temporary password" });
    expect(banner).toHaveTextContent(/^You are using the temporary password\. Change it now\.$/);
    // It comes first on the dashboard, before the title.
    expect(
      banner.compareDocumentPosition(screen.getByRole("heading", { level: 1 })) & Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy();

    await userEvent.click(within(banner).getByRole("button", { name: "Change it now." }));
    const dialog = await screen.findByRole("dialog", { name: "Change Password" });
    expect(window.location.search).toBe("?view=account");
    expect(screen.getByRole("heading", { level: 1, name: "Your Account", hidden: true })).toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText("Current password"), "the generated one");
    await userEvent.type(within(dialog).getByLabelText("New password"), "a long new password");
    await userEvent.type(within(dialog).getByLabelText("Repeat the new password"), "a long new password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Change Password" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(toast).toHaveBeenCalledWith(expect.objectContaining({ title: "Password Changed" }));
    // The Change Password button takes focus; back on the dashboard the banner has gone.
    expect(screen.getByRole("button", { name: "Change Password" })).toHaveFocus();
    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    await screen.findByRole("heading", { level: 1, name: "Website Management" });
    await waitFor(() => expect(screen.queryByRole("region", { name: "Temporary password" })).toBeNull());
    expect(screen.getByRole("link", { name: /^Your account/ })).not.toHaveAttribute("data-attention");
  }, 20_000);
});
