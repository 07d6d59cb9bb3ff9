import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AdminApp } from "./admin-app";
import { json, mockFetch } from "./test-helpers";
import { DISCARD_DIALOG } from "./unsaved-changes";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const USER = { id: "u1", username: "owner" };

function signedInWithFooter() {
  return mockFetch([
    { method: "GET", path: "/api/auth/user", respond: () => json(200, USER) },
    {
      method: "GET",
      path: "/api/content/footer.description",
      respond: () =>
        json(200, { key: "footer.description", content: "Stored footer", updatedAt: null, isDefault: false }),
    },
  ]);
}

/** Opens the Footer editor from the dashboard (a history entry, as a phone's Back gesture expects). */
async function openFooterEditor() {
  render(<AdminApp navigate={vi.fn()} />);
  await userEvent.click(await screen.findByRole("button", { name: "Footer" }));
  await screen.findByRole("heading", { level: 1, name: "Content Editor" });
  return screen.findByDisplayValue("Stored footer");
}

describe("Leaving the text editor with unsaved text", () => {
  beforeEach(() => {
    window.history.replaceState(null, "", "/admin");
    window.scrollTo = vi.fn() as typeof window.scrollTo;
  });
  afterEach(() => vi.unstubAllGlobals());

  it("Back asks first; 'Keep editing' keeps the view and the text, 'Discard changes' leaves", async () => {
    signedInWithFooter();
    const field = await openFooterEditor();
    await userEvent.type(field, " (edited)");

    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    const dialog = await screen.findByRole("dialog", { name: DISCARD_DIALOG.title });
    expect(within(dialog).getByRole("button", { name: DISCARD_DIALOG.keep })).toHaveFocus();
    await userEvent.click(within(dialog).getByRole("button", { name: DISCARD_DIALOG.keep }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(screen.getByRole("heading", { level: 1, name: "Content Editor" })).toBeInTheDocument();
    expect(screen.getByLabelText("Content")).toHaveValue("Stored footer (edited)");
    expect(window.location.search).toBe("?view=content%3Afooter");

    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: DISCARD_DIALOG.title })).getByRole("button", {
        name: DISCARD_DIALOG.discard,
      }),
    );
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
  });

  it("Back leaves at once when nothing is unsaved", async () => {
    signedInWithFooter();
    await openFooterEditor();
    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("the browser's Back asks too: the view and its address stay until the owner discards", async () => {
    signedInWithFooter();
    const field = await openFooterEditor();
    await userEvent.type(field, " (edited)");

    act(() => window.history.back());
    const dialog = await screen.findByRole("dialog", { name: DISCARD_DIALOG.title });
    expect(window.location.search).toBe("?view=content%3Afooter");
    expect(screen.getByLabelText("Content")).toHaveValue("Stored footer (edited)");

    await userEvent.click(within(dialog).getByRole("button", { name: DISCARD_DIALOG.discard }));
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
  });
});
