import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SignInMethods } from "~/auth/sign-in-methods";
import { toast } from "~/components/ui/use-toast";
import { AccountCard } from "./account-security";
import { json, mockFetch, renderWithClient } from "../test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.mocked(toast).mockClear();
});

/** What the card sent, leaving out its reads (the sign-in methods). */
const writes = (calls: { method: string; url: string; body: unknown }[]) =>
  calls.filter((call) => call.method !== "GET");

async function openChangePassword() {
  await userEvent.click(screen.getByRole("button", { name: "Change Password" }));
  return screen.getByRole("dialog", { name: "Change Password" });
}

async function fill(dialog: HTMLElement, values: [string, string, string]) {
  const labels = ["Current password", "New password", "Repeat the new password"];
  for (const [i, label] of labels.entries()) {
    const input = within(dialog).getByLabelText(label);
    await userEvent.clear(input);
    if (values[i]) await userEvent.type(input, values[i]);
  }
}

describe("Change password", () => {
  it("checks the fields in place, in the browser, before sending anything", async () => {
    const { calls } = mockFetch([]);
    renderWithClient(<AccountCard username="owner" navigate={vi.fn()} onBack={vi.fn()} />);
    const dialog = await openChangePassword();
    await fill(dialog, ["old password", "short", "short"]);
    fireEvent.submit(within(dialog).getByRole("form", { name: "Change password" }));
    const newPassword = within(dialog).getByLabelText("New password");
    expect(newPassword).toHaveAttribute("aria-invalid", "true");
    expect(newPassword).toHaveAccessibleDescription("The new password must be at least 8 characters");
    expect(newPassword).toHaveFocus();
    await fill(dialog, ["old password", "long enough now", "long enough, not"]);
    await userEvent.click(within(dialog).getByRole("button", { name: "Change Password" }));
    expect(within(dialog).getByLabelText("Repeat the new password")).toHaveAccessibleDescription(
      "The two new passwords differ",
    );
    expect(writes(calls)).toEqual([]);
  });

  it("sends the three fields, then closes and says so", async () => {
    const { calls } = mockFetch([
      { method: "POST", path: "/api/admin/password", respond: () => json(200, { message: "ok" }) },
    ]);
    renderWithClient(<AccountCard username="owner" navigate={vi.fn()} onBack={vi.fn()} />);
    const dialog = await openChangePassword();
    expect(within(dialog).getByLabelText("Current password")).toHaveAttribute("autocomplete", "current-password");
    expect(within(dialog).getByLabelText("New password")).toHaveAttribute("autocomplete", "new-password");
    await fill(dialog, ["old password", "a new long password", "a new long password"]);
    await userEvent.click(within(dialog).getByRole("button", { name: "Change Password" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(writes(calls)).toEqual([
      {
        method: "POST",
        url: "/api/admin/password",
        body: {
          currentPassword: "old password",
          newPassword: "a new long password",
          confirmPassword: "a new long password",
        },
      },
    ]);
    expect(toast).toHaveBeenCalledWith({
      title: "Password Changed",
      description: "Every other phone and computer was signed out.",
    });
  });

  it("shows the server's field message for a wrong current password, and its message for a lock-out", async () => {
    let answer = json(400, {
      message: "The current password is not right",
      errors: { currentPassword: "The current password is not right" },
    });
    mockFetch([{ method: "POST", path: "/api/admin/password", respond: () => answer }]);
    renderWithClient(<AccountCard username="owner" navigate={vi.fn()} onBack={vi.fn()} />);
    const dialog = await openChangePassword();
    await fill(dialog, ["wrong password", "a new long password", "a new long password"]);
    await userEvent.click(within(dialog).getByRole("button", { name: "Change Password" }));
    expect(await within(dialog).findByText("The current password is not right")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Current password")).toHaveAttribute("aria-invalid", "true");

    answer = json(429, { message: "Too many failed sign-in attempts. Please try again later." });
    await userEvent.click(within(dialog).getByRole("button", { name: "Change Password" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent(
      "Too many failed sign-in attempts. Please try again later.",
    );
  });
});

describe("Sign out everywhere", () => {
  it("asks first, then ends every session and reloads /admin", async () => {
    const navigate = vi.fn();
    const { calls } = mockFetch([
      { method: "DELETE", path: "/api/admin/sessions", respond: () => new Response(null, { status: 204 }) },
    ]);
    renderWithClient(<AccountCard username="owner" navigate={navigate} onBack={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Sign Out Everywhere" }));
    const dialog = screen.getByRole("dialog", { name: "Sign out everywhere?" });
    expect(dialog).toHaveTextContent("this one included");
    expect(writes(calls)).toEqual([]);
    await userEvent.click(within(dialog).getByRole("button", { name: "Sign Out Everywhere" }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith("/admin"));
    expect(writes(calls).map((c) => `${c.method} ${c.url}`)).toEqual(["DELETE /api/admin/sessions"]);
  });

  it("says so when it fails, and stays", async () => {
    const navigate = vi.fn();
    mockFetch([{ method: "DELETE", path: "/api/admin/sessions", respond: () => json(500, { message: "x" }) }]);
    renderWithClient(<AccountCard username="owner" navigate={navigate} onBack={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Sign Out Everywhere" }));
    await userEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Sign Out Everywhere" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Sign Out Failed",
        description: "Please try again.",
        variant: "destructive",
      }),
    );
    expect(navigate).not.toHaveBeenCalled();
  });
});

const PASSKEYS: SignInMethods = {
  passkeys: {
    available: true,
    unavailableReason: null,
    list: [
      {
        id: "phone",
        name: "Mark's iPhone",
        createdAt: "2026-03-01T20:00:00.000Z",
        lastUsedAt: "2026-03-02T20:00:00.000Z",
      },
      { id: "planted", name: "Planted", createdAt: "2026-03-02T21:00:00.000Z", lastUsedAt: null },
    ],
    signedInWith: "phone",
  },
  twoStep: { status: "off", recoveryCodesLeft: 0 },
};
const methodsRoute = { method: "GET", path: "/api/admin/sign-in-methods", respond: () => json(200, PASSKEYS) };

describe("Sign out everywhere, with passkeys", () => {
  it("lists the passkeys with when each was last used, and removes all but the one in use only with the current password", async () => {
    const navigate = vi.fn();
    const { calls } = mockFetch([
      methodsRoute,
      { method: "DELETE", path: "/api/admin/sessions", respond: () => new Response(null, { status: 204 }) },
    ]);
    renderWithClient(<AccountCard username="owner" navigate={navigate} onBack={vi.fn()} />);
    await screen.findByRole("list", { name: "Your passkeys" });
    await userEvent.click(screen.getByRole("button", { name: "Sign Out Everywhere" }));
    const dialog = screen.getByRole("dialog", { name: "Sign out everywhere?" });
    const list = within(dialog).getByRole("list", { name: "Passkeys that can sign in" });
    expect(
      within(list)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual([
      expect.stringMatching(/^Mark's iPhone \(you signed in with this one\)Added .+ · Last used .+$/),
      expect.stringMatching(/^PlantedAdded .+ · Not used yet$/),
    ]);
    expect(within(dialog).queryByLabelText("Current password")).toBeNull();
    await userEvent.click(
      within(dialog).getByRole("checkbox", { name: "Also remove the other passkey (keeps “Mark's iPhone”)" }),
    );
    await userEvent.click(within(dialog).getByRole("button", { name: "Sign Out Everywhere" }));
    expect(within(dialog).getByLabelText("Current password")).toHaveAccessibleDescription(
      "Enter your current password, or confirm with a passkey",
    );
    expect(writes(calls)).toEqual([]);

    await userEvent.type(within(dialog).getByLabelText("Current password"), "the password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Sign Out Everywhere" }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith("/admin"));
    expect(writes(calls)).toEqual([
      {
        method: "DELETE",
        url: "/api/admin/sessions",
        body: { removeOtherPasskeys: true, currentPassword: "the password" },
      },
    ]);
  });
});

describe("Removing a passkey", () => {
  it("asks for the current password, shows the server's refusal on it, and sends it with the removal", async () => {
    let answer = json(400, {
      message: "The current password is not right",
      errors: { currentPassword: "The current password is not right" },
    });
    const { calls } = mockFetch([
      methodsRoute,
      { method: "DELETE", path: "/api/admin/passkeys/planted", respond: () => answer },
    ]);
    renderWithClient(<AccountCard username="owner" navigate={vi.fn()} onBack={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Remove Planted" }));
    const dialog = screen.getByRole("dialog", { name: "Remove this passkey?" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Remove Passkey" }));
    expect(writes(calls)).toEqual([]);
    await userEvent.type(within(dialog).getByLabelText("Current password"), "wrong");
    await userEvent.click(within(dialog).getByRole("button", { name: "Remove Passkey" }));
    expect(await within(dialog).findByText("The current password is not right")).toBeInTheDocument();

    answer = new Response(null, { status: 204 });
    await userEvent.clear(within(dialog).getByLabelText("Current password"));
    await userEvent.type(within(dialog).getByLabelText("Current password"), "the password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Remove Passkey" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({ title: "Passkey Removed", description: '"Planted" can no longer sign in.' }),
    );
    expect(writes(calls).map((call) => call.body)).toEqual([
      { currentPassword: "wrong" },
      { currentPassword: "the password" },
    ]);
  });
});

describe("Adding a passkey", () => {
  it("asks for the current password even right after signing in, and sends it first", async () => {
    const { calls } = mockFetch([
      methodsRoute,
      {
        method: "POST",
        path: "/api/admin/passkeys/options",
        respond: () =>
          json(400, {
            message: "The current password is not right",
            errors: { currentPassword: "The current password is not right" },
          }),
      },
    ]);
    renderWithClient(<AccountCard username="owner" navigate={vi.fn()} onBack={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Add a passkey" }));
    const dialog = screen.getByRole("dialog", { name: "Add a passkey" });
    await userEvent.type(within(dialog).getByLabelText("Current password"), "wrong");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add Passkey" }));
    expect(await within(dialog).findByText("The current password is not right")).toBeInTheDocument();
    expect(writes(calls)).toEqual([
      { method: "POST", url: "/api/admin/passkeys/options", body: { currentPassword: "wrong" } },
    ]);
  });

  it("shows its message when a 400 answer's body is not JSON (a proxy's page), and keeps the form", async () => {
    mockFetch([
      methodsRoute,
      {
        method: "POST",
        path: "/api/admin/passkeys/options",
        respond: () =>
          new Response("<html><body>400 Bad Request</body></html>", {
            status: 400,
            headers: { "Content-Type": "text/html" },
          }),
      },
    ]);
    renderWithClient(<AccountCard username="owner" navigate={vi.fn()} onBack={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Add a passkey" }));
    const dialog = screen.getByRole("dialog", { name: "Add a passkey" });
    await userEvent.type(within(dialog).getByLabelText("Current password"), "the password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add Passkey" }));
    expect(await within(dialog).findByText("The passkey could not be added. Please try again.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Current password")).toHaveValue("the password");
  });
});
