import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SecuritySummary } from "~/auth/security-summary";
import { toast } from "~/components/ui/use-toast";
import { AdminApp } from "./admin-app";
import { json, mockFetch } from "./test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const USER = { id: "u1", username: "admin" };
const summary = (temporaryPassword: boolean): SecuritySummary => ({
  failedSignInsBeforeThisSession: { failedAttempts: 0, addresses: 0, moreAddresses: false, firstFailedAt: null, lastFailedAt: null },
  temporaryPassword,
});

beforeEach(() => {
  window.history.replaceState(null, "", "/admin");
  window.scrollTo = vi.fn() as typeof window.scrollTo;
  Element.prototype.scrollIntoView = vi.fn();
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

describe("the dashboard's jump links (issue 18 §11)", () => {
  it("lists one link per card, in page order, in a labelled navigation landmark", async () => {
    await renderDashboard();
    const nav = screen.getByRole("navigation", { name: "Dashboard sections" });
    const links = within(nav).getAllByRole("link");
    expect(links.map((link) => link.textContent)).toEqual(["Texts", "Galleries", "Enquiries", "E-mail", "Account", "Backups", "Visits", "Activity"]);
    const cardTitles = ["Edit Website Text", "Manage Photo Galleries", "Contact Form Submissions", "E-mail Notifications", "Your Account", "Backups", "Visits and Enquiries", "Recent activity"];
    // Every card on the page has its link, and every link its card.
    const headings = screen.getAllByRole("heading", { level: 2 }).filter((h) => h.closest("section")?.getAttribute("aria-labelledby") === h.id);
    expect(headings.map((h) => h.textContent)).toEqual(cardTitles);
    links.forEach((link, i) => expect(link.getAttribute("href")).toBe(`#${headings[i]!.id}`));
  });

  it("moves focus to the card's heading without adding a history entry", async () => {
    await renderDashboard();
    const entries = window.history.length;
    await userEvent.click(within(screen.getByRole("navigation", { name: "Dashboard sections" })).getByRole("link", { name: "Backups" }));
    expect(screen.getByRole("heading", { level: 2, name: "Backups" })).toHaveFocus();
    expect(Element.prototype.scrollIntoView).toHaveBeenCalled();
    expect(window.location.hash).toBe("");
    expect(window.history.length).toBe(entries);
  });

  it("gives every card a Back to top link that returns focus to the jump links", async () => {
    await renderDashboard();
    const backLinks = screen.getAllByRole("link", { name: "Back to top" });
    expect(backLinks).toHaveLength(8);
    const account = screen.getByRole("region", { name: "Your Account" });
    await userEvent.click(within(account).getByRole("link", { name: "Back to top" }));
    expect(screen.getByRole("navigation", { name: "Dashboard sections" })).toHaveFocus();
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 0 });
    expect(window.location.hash).toBe("");
  });
});

describe("the temporary-password banner (issue 18 §10)", () => {
  it("is not shown once the password has been changed", async () => {
    const { calls } = await renderDashboard(false);
    await waitFor(() => expect(calls.some((c) => c.url === "/api/admin/security/summary")).toBe(true));
    await screen.findByTestId("sign-in-activity");
    expect(screen.queryByText(/temporary password/)).toBeNull();
  });

  it("asks to change the temporary password, opens Change Password, and goes once it is changed", async () => {
    await renderDashboard(true);
    const banner = await screen.findByRole("region", { name: "Temporary password" });
    expect(banner).toHaveTextContent(/^You are using the temporary password\. Change it now\.$/);
    // It comes first on the dashboard, before the title.
    expect(banner.compareDocumentPosition(screen.getByRole("heading", { level: 1 })) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    const changeNow = within(banner).getByRole("button", { name: "Change it now." });
    await userEvent.click(changeNow);
    let dialog = await screen.findByRole("dialog", { name: "Change Password" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(changeNow).toHaveFocus();

    await userEvent.click(changeNow);
    dialog = await screen.findByRole("dialog", { name: "Change Password" });
    await userEvent.type(within(dialog).getByLabelText("Current password"), "the generated one");
    await userEvent.type(within(dialog).getByLabelText("New password"), "a long new password");
    await userEvent.type(within(dialog).getByLabelText("Repeat the new password"), "a long new password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Change Password" }));
    await waitFor(() => expect(screen.queryByRole("region", { name: "Temporary password" })).toBeNull());
    expect(toast).toHaveBeenCalledWith(expect.objectContaining({ title: "Password Changed" }));
  });
});
