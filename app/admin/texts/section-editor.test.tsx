import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import { createAdminQueryClient } from "../query-client";
import { CONTENT_LOAD_FAILED, SectionEditor } from "./section-editor";
import { deferred, json, mockFetch, renderWithClient } from "../test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

const entry = (content: string) => ({ key: "hero.title", content, updatedAt: null, isDefault: false });

function contentRoutes(options: { save?: () => Response | Promise<Response> } = {}) {
  let stored = "Stored headline";
  return mockFetch([
    { method: "GET", path: "/api/content/hero.title", respond: () => json(200, entry(stored)) },
    {
      method: "PUT",
      path: "/api/admin/content/hero.title",
      respond: async ({ body }) => {
        const res = options.save ? await options.save() : json(200, entry((body as { content: string }).content));
        if (res.ok) stored = (body as { content: string }).content;
        return res;
      },
    },
  ]);
}

describe("SectionEditor", () => {
  beforeEach(() => vi.mocked(toast).mockClear());
  afterEach(() => vi.unstubAllGlobals());

  it("is an 8-row Content field prefilled with the stored text, with no Cancel when not closable", async () => {
    contentRoutes();
    renderWithClient(<SectionEditor sectionKey="hero.title" />);
    const field = screen.getByLabelText("Content");
    expect(field.tagName).toBe("TEXTAREA");
    expect(field).toHaveAttribute("rows", "8");
    expect(field).toHaveAttribute("placeholder", "Section content");
    expect(await screen.findByDisplayValue("Stored headline")).toBe(field);
    expect(screen.getByRole("button", { name: "Save Changes" })).toBeEnabled();
    expect(screen.queryByRole("button", { name: "Cancel" })).toBeNull();
  });

  it("saves, says so, shows 'Saving...' meanwhile and refetches the cached content", async () => {
    const save = deferred<Response>();
    const { calls } = contentRoutes({ save: () => save.promise });
    renderWithClient(<SectionEditor sectionKey="hero.title" />);
    const field = await screen.findByDisplayValue("Stored headline");
    await userEvent.clear(field);
    await userEvent.type(field, "New headline");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    expect(await screen.findByRole("button", { name: "Saving..." })).toBeDisabled();
    expect(calls.at(-1)).toEqual({
      method: "PUT",
      url: "/api/admin/content/hero.title",
      body: { content: "New headline" },
    });
    await act(async () => save.resolve(json(200, entry("New headline"))));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Content Updated",
        description: "Your changes have been saved successfully.",
      }),
    );
    await waitFor(() => expect(calls.filter((c) => c.method === "GET")).toHaveLength(2));
    expect(screen.getByLabelText("Content")).toHaveValue("New headline");
    expect(await screen.findByRole("button", { name: "Save Changes" })).toBeEnabled();
  });

  it("says 'Error' when a save fails for another reason, keeping the draft", async () => {
    contentRoutes({ save: () => json(500, { message: "boom" }) });
    renderWithClient(<SectionEditor sectionKey="hero.title" />);
    const field = await screen.findByDisplayValue("Stored headline");
    await userEvent.type(field, "!");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Error",
        description: "Failed to update content. Please try again.",
        variant: "destructive",
      }),
    );
    expect(field).toHaveValue("Stored headline!");
  });

  it("leaves a 401 to the 'Unauthorized' flow alone", async () => {
    contentRoutes({ save: () => json(401, { message: "Unauthorized" }) });
    const navigate = vi.fn();
    renderWithClient(<SectionEditor sectionKey="hero.title" />, createAdminQueryClient({ navigate }));
    await screen.findByDisplayValue("Stored headline");
    await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith("/admin"), { timeout: 1500 });
    expect(toast).toHaveBeenCalledTimes(1);
    expect(vi.mocked(toast).mock.calls[0]?.[0].title).toBe("Unauthorized");
  });

  it("shows an error with Retry when the stored text cannot be read, and never offers the default for saving", async () => {
    let fail = true;
    const { calls } = mockFetch([
      {
        method: "GET",
        path: "/api/content/hero.title",
        respond: () => (fail ? json(500, { message: "boom" }) : json(200, entry("Stored headline"))),
      },
    ]);
    renderWithClient(<SectionEditor sectionKey="hero.title" defaultContent="Built-in headline" />);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(CONTENT_LOAD_FAILED);
    const field = screen.getByLabelText("Content");
    expect(field).toHaveValue("");
    expect(field).toBeDisabled();
    expect(screen.queryByDisplayValue("Built-in headline")).toBeNull();
    const saveButton = screen.getByRole("button", { name: "Save Changes" });
    expect(saveButton).toBeDisabled();
    fireEvent.submit(saveButton.closest("form")!);
    expect(calls.some((c) => c.method === "PUT")).toBe(false);

    fail = false;
    await userEvent.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(await screen.findByDisplayValue("Stored headline")).toBeEnabled();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByRole("button", { name: "Save Changes" })).toBeEnabled();
    expect(toast).not.toHaveBeenCalled();
  });

  it("keeps Save disabled while the stored text is still loading", async () => {
    const load = deferred<Response>();
    mockFetch([{ method: "GET", path: "/api/content/hero.title", respond: () => load.promise }]);
    renderWithClient(<SectionEditor sectionKey="hero.title" defaultContent="Built-in headline" />);
    expect(screen.getByRole("button", { name: "Save Changes" })).toBeDisabled();
    expect(screen.getByLabelText("Content")).toBeDisabled();
    await act(async () => load.resolve(json(200, entry("Stored headline"))));
    expect(await screen.findByRole("button", { name: "Save Changes" })).toBeEnabled();
  });

  describe("unsaved text", () => {
    const beforeUnload = () => {
      const event = new Event("beforeunload", { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };

    it("makes the browser ask before the tab closes or reloads, until it is saved", async () => {
      contentRoutes();
      renderWithClient(<SectionEditor sectionKey="hero.title" />);
      const field = await screen.findByDisplayValue("Stored headline");
      expect(beforeUnload()).toBe(false);
      await userEvent.type(field, " and more");
      expect(beforeUnload()).toBe(true);
      await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
      await waitFor(() => expect(toast).toHaveBeenCalledTimes(1));
      await waitFor(() => expect(beforeUnload()).toBe(false));
    });

    it("is saved from the moment 'Content Updated' shows, though the refetch has not answered yet", async () => {
      const refetch = deferred<Response>();
      let gets = 0;
      mockFetch([
        {
          method: "GET",
          path: "/api/content/hero.title",
          respond: () => (++gets === 1 ? json(200, entry("Stored headline")) : refetch.promise),
        },
        {
          method: "PUT",
          path: "/api/admin/content/hero.title",
          respond: ({ body }) => json(200, entry((body as { content: string }).content)),
        },
      ]);
      renderWithClient(<SectionEditor sectionKey="hero.title" />);
      const field = await screen.findByDisplayValue("Stored headline");
      await userEvent.type(field, " and more");
      await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
      await waitFor(() => expect(toast).toHaveBeenCalledTimes(1));
      expect(gets).toBe(2);
      expect(beforeUnload()).toBe(false);
      expect(field).toHaveValue("Stored headline and more");
      await act(async () => refetch.resolve(json(200, entry("Stored headline and more"))));
    });

    it("does not count text typed back to what is stored", async () => {
      contentRoutes();
      renderWithClient(<SectionEditor sectionKey="hero.title" />);
      const field = await screen.findByDisplayValue("Stored headline");
      await userEvent.type(field, "!");
      expect(beforeUnload()).toBe(true);
      await userEvent.type(field, "{Backspace}");
      expect(beforeUnload()).toBe(false);
    });
  });

  describe("when closable", () => {
    it("has a Cancel button that discards the draft and closes", async () => {
      const { calls } = contentRoutes();
      const onClose = vi.fn();
      renderWithClient(<SectionEditor sectionKey="hero.title" onClose={onClose} />);
      const field = await screen.findByDisplayValue("Stored headline");
      await userEvent.type(field, " and more");
      await userEvent.click(screen.getByRole("button", { name: "Cancel" }));
      expect(onClose).toHaveBeenCalledTimes(1);
      expect(field).toHaveValue("Stored headline");
      expect(calls.some((c) => c.method === "PUT")).toBe(false);
    });

    it("closes after a successful save, not after a failed one", async () => {
      let fail = true;
      contentRoutes({ save: () => (fail ? json(500, { message: "boom" }) : json(200, entry("x"))) });
      const onClose = vi.fn();
      renderWithClient(<SectionEditor sectionKey="hero.title" onClose={onClose} />);
      await screen.findByDisplayValue("Stored headline");
      await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
      await waitFor(() => expect(toast).toHaveBeenCalledTimes(1));
      expect(onClose).not.toHaveBeenCalled();
      fail = false;
      await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
      await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
      expect(vi.mocked(toast).mock.calls.at(-1)?.[0].title).toBe("Content Updated");
    });

    it("cannot be cancelled while saving", async () => {
      const save = deferred<Response>();
      contentRoutes({ save: () => save.promise });
      renderWithClient(<SectionEditor sectionKey="hero.title" onClose={vi.fn()} />);
      await screen.findByDisplayValue("Stored headline");
      await userEvent.click(screen.getByRole("button", { name: "Save Changes" }));
      expect(screen.getByRole("button", { name: "Cancel" })).toBeDisabled();
      await act(async () => save.resolve(json(200, entry("Stored headline"))));
    });
  });
});
