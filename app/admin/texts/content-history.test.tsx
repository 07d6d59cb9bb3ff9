import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import { previewOf } from "./content-history";
import { SectionEditor } from "./section-editor";
import { json, mockFetch, renderWithClient } from "../test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const LONG =
  "Dry-stone walls, veneer and retaining walls across Taranaki, built by hand to last for generations. Call for a quote.";
const VERSIONS = [
  // Local times (no zone), so the expected wording does not depend on the machine's time zone.
  { id: "v2", content: LONG, savedAt: "2024-01-01T15:00:00", savedBy: "owner" },
  { id: "v1", content: "First headline", savedAt: "2023-12-24T09:05:00", savedBy: "owner" },
];

/** A server with one section: its current text, its versions, restore and reset. */
function historyServer(
  options: { current?: string; isDefault?: boolean; versions?: typeof VERSIONS; failRestore?: boolean } = {},
) {
  let current = options.current ?? "Current headline";
  let isDefault = options.isDefault ?? false;
  const versions = options.versions ?? VERSIONS;
  return mockFetch([
    {
      method: "GET",
      path: "/api/content/hero.title",
      respond: () => json(200, { key: "hero.title", content: current, updatedAt: null, isDefault }),
    },
    { method: "GET", path: "/api/admin/content/hero.title/history", respond: () => json(200, versions) },
    {
      method: "POST",
      path: /^\/api\/admin\/content\/hero\.title\/history\/(\w+)\/restore$/,
      respond: ({ url }) => {
        if (options.failRestore) return json(500, { message: "boom" });
        current = versions.find((v) => url.includes(`/${v.id}/`))!.content;
        isDefault = false;
        return json(200, {
          key: "hero.title",
          content: current,
          updatedAt: "2024-02-01T00:00:00.000Z",
          isDefault: false,
        });
      },
    },
    {
      method: "DELETE",
      path: "/api/admin/content/hero.title",
      respond: () => {
        current = "Built-in headline";
        isDefault = true;
        return new Response(null, { status: 204 });
      },
    },
  ]);
}

const renderEditor = () =>
  renderWithClient(
    <SectionEditor sectionKey="hero.title" sectionTitle="Hero Title" defaultContent="Built-in headline" />,
  );

async function openHistory() {
  await userEvent.click(await screen.findByRole("button", { name: "History of Hero Title" }));
  return screen.findByRole("dialog", { name: "History" });
}

describe("previewOf", () => {
  it("keeps the first 80 characters on one line, marking a cut", () => {
    expect(previewOf("Short\n\ntext")).toBe("Short text");
    const preview = previewOf(LONG);
    expect(preview).toBe(`${LONG.slice(0, 80).trimEnd()}…`);
    expect(Array.from(preview)).toHaveLength(81);
    expect(previewOf("🧱".repeat(100))).toBe(`${"🧱".repeat(80)}…`);
  });
});

describe("Section history", () => {
  beforeEach(() => vi.mocked(toast).mockClear());
  afterEach(() => vi.unstubAllGlobals());

  it("lists earlier versions newest first, with the date in the spec's format and the first 80 characters", async () => {
    historyServer();
    renderEditor();
    const dialog = await openHistory();
    const items = await within(dialog).findAllByRole("listitem");
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent("January 1st, 2024 at 3:00 PM");
    expect(items[1]).toHaveTextContent("December 24th, 2023 at 9:05 AM");
    expect(items[0]).toHaveTextContent(previewOf(LONG));
    expect(items[0]).not.toHaveTextContent(LONG);
    expect(items[1]).toHaveTextContent("First headline");
    expect(within(items[0]!).getByRole("button", { name: "Restore" })).toBeInTheDocument();
  });

  it("restores only after confirming, then says so, refreshes the text and closes", async () => {
    const { calls } = historyServer();
    renderEditor();
    await screen.findByDisplayValue("Current headline");
    const dialog = await openHistory();
    const [, older] = await within(dialog).findAllByRole("listitem");
    await userEvent.click(within(older!).getByRole("button", { name: "Restore" }));
    const confirm = await screen.findByRole("dialog", { name: "Restore this version?" });
    expect(within(confirm).getByRole("region", { name: "Text of this version" })).toHaveTextContent("First headline");
    expect(calls.some((c) => c.method === "POST")).toBe(false);

    // Cancel goes back to the list without restoring.
    await userEvent.click(within(confirm).getByRole("button", { name: "Cancel" }));
    const list = await screen.findByRole("dialog", { name: "History" });
    await userEvent.click(within(within(list).getAllByRole("listitem")[1]!).getByRole("button", { name: "Restore" }));
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: "Restore this version?" })).getByRole("button", {
        name: "Restore",
      }),
    );

    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Version Restored",
        description: "The website now shows the restored text.",
      }),
    );
    expect(calls.filter((c) => c.method === "POST").map((c) => c.url)).toEqual([
      "/api/admin/content/hero.title/history/v1/restore",
    ]);
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(await screen.findByDisplayValue("First headline")).toBeInTheDocument();
  });

  it("resets to the default only after confirming, showing the built-in text first", async () => {
    const { calls } = historyServer();
    renderEditor();
    await screen.findByDisplayValue("Current headline");
    const dialog = await openHistory();
    await userEvent.click(within(dialog).getByRole("button", { name: "Reset to default" }));
    const confirm = await screen.findByRole("dialog", { name: "Reset to default?" });
    expect(within(confirm).getByRole("region", { name: "Built-in text" })).toHaveTextContent("Built-in headline");
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    await userEvent.click(within(confirm).getByRole("button", { name: "Reset to default" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Default Restored",
        description: "The website now shows the built-in text.",
      }),
    );
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.url)).toEqual(["/api/admin/content/hero.title"]);
    expect(await screen.findByDisplayValue("Built-in headline")).toBeInTheDocument();
  });

  it("warns that a restore replaces unsaved text, and drops the draft after it", async () => {
    historyServer();
    renderEditor();
    const field = await screen.findByDisplayValue("Current headline");
    await userEvent.type(field, " draft");
    const dialog = await openHistory();
    await userEvent.click(
      within((await within(dialog).findAllByRole("listitem"))[1]!).getByRole("button", { name: "Restore" }),
    );
    const confirm = await screen.findByRole("dialog", { name: "Restore this version?" });
    expect(confirm).toHaveTextContent("Your unsaved changes to this section will be replaced.");
    await userEvent.click(within(confirm).getByRole("button", { name: "Restore" }));
    expect(await screen.findByDisplayValue("First headline")).toBeInTheDocument();
  });

  it("says when there are no earlier versions, and offers no reset when the default shows", async () => {
    historyServer({ versions: [], isDefault: true, current: "Built-in headline" });
    renderEditor();
    await screen.findByDisplayValue("Built-in headline");
    const dialog = await openHistory();
    expect(await within(dialog).findByText(/No earlier versions yet/)).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Reset to default" })).toBeDisabled();
  });

  it("says 'Error' when a restore fails, and keeps the dialog open", async () => {
    historyServer({ failRestore: true });
    renderEditor();
    await screen.findByDisplayValue("Current headline");
    const dialog = await openHistory();
    await userEvent.click(
      within((await within(dialog).findAllByRole("listitem"))[0]!).getByRole("button", { name: "Restore" }),
    );
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: "Restore this version?" })).getByRole("button", {
        name: "Restore",
      }),
    );
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Error",
        description: "Failed to restore the text. Please try again.",
        variant: "destructive",
      }),
    );
    expect(screen.getByRole("dialog", { name: "Restore this version?" })).toBeInTheDocument();
    expect(screen.getByLabelText("Content")).toHaveValue("Current headline");
  });
});
