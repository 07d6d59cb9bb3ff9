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

// Tests chain many user events; on a 2-core machine shared with other runs some need more than 5 s.
describe("Leaving the text editor with unsaved text", { timeout: 20_000 }, () => {
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
  it("the browser's Back, then Keep editing: the entry is put back as it was, Back asks again, and Forward still finds the editor", async () => {
    // React Router's own state of the entry, which must survive (its history index).
    window.history.replaceState({ usr: null, key: "router-key", idx: 0 }, "", "/admin");
    signedInWithFooter();
    const field = await openFooterEditor();
    await userEvent.type(field, " (edited)");

    act(() => window.history.back());
    const dialog = await screen.findByRole("dialog", { name: DISCARD_DIALOG.title });
    await userEvent.click(within(dialog).getByRole("button", { name: DISCARD_DIALOG.keep }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(window.location.search).toBe("?view=content%3Afooter");
    expect(window.history.state).toMatchObject({ key: "router-key", idx: 0 });
    expect(screen.getByLabelText("Content")).toHaveValue("Stored footer (edited)");

    // The entry was put back: the browser's Back asks again.
    act(() => window.history.back());
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: DISCARD_DIALOG.title })).getByRole("button", {
        name: DISCARD_DIALOG.keep,
      }),
    );
    // The page's own Back, then Discard: it steps back to the dashboard's entry…
    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: DISCARD_DIALOG.title })).getByRole("button", {
        name: DISCARD_DIALOG.discard,
      }),
    );
    expect(await screen.findByRole("heading", { level: 1, name: "Website Management" })).toBeInTheDocument();
    expect(window.location.search).toBe("");
    // …so Forward opens the editor again, with the stored text.
    act(() => window.history.forward());
    expect(await screen.findByRole("heading", { level: 1, name: "Content Editor" })).toBeInTheDocument();
    expect(await screen.findByDisplayValue("Stored footer")).toBeInTheDocument();
  });
});
