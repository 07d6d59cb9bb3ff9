import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import type { GalleryImage } from "~/galleries/gallery";
import { GalleryManager } from "./gallery-manager";
import { galleryImage, json, mockFetch, renderWithClient } from "../test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

function galleryRoutes(initial: GalleryImage[], options: { patch?: number; del?: number } = {}) {
  let images = initial;
  return mockFetch([
    { method: "GET", path: "/api/galleries/traditional", respond: () => json(200, images) },
    {
      method: "PATCH",
      path: /^\/api\/admin\/gallery-images\/[^/]+$/,
      respond: ({ url, body }) => {
        if (options.patch) return json(options.patch, { message: "nope" });
        const id = url.split("/").pop();
        images = images.map((img) =>
          img.id === id ? { ...img, caption: (body as { caption: string }).caption } : img,
        );
        return json(
          200,
          images.find((img) => img.id === id),
        );
      },
    },
    {
      method: "DELETE",
      path: /^\/api\/admin\/gallery-images\/[^/]+$/,
      respond: ({ url }) => {
        if (options.del) return json(options.del, { message: "nope" });
        images = images.filter((img) => img.id !== url.split("/").pop());
        return new Response(null, { status: 204 });
      },
    },
  ]);
}

describe("GalleryManager", () => {
  beforeEach(() => vi.mocked(toast).mockClear());
  afterEach(() => vi.unstubAllGlobals());

  it("shows the empty state", async () => {
    galleryRoutes([]);
    renderWithClient(<GalleryManager galleryType="traditional" onBack={vi.fn()} />);
    expect(screen.getByRole("heading", { level: 1, name: "Traditional Stonework Gallery" })).toBeInTheDocument();
    expect(await screen.findByText("No images yet")).toBeInTheDocument();
    expect(screen.getByText("Upload your first image to get started")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Upload Images" })).toBeInTheDocument();
  });

  it("shows each image as a card with a drag handle, a delete button, a lazy image and its caption", async () => {
    galleryRoutes([galleryImage("a", "Basalt wall"), galleryImage("b")]);
    const onBack = vi.fn();
    renderWithClient(<GalleryManager galleryType="traditional" onBack={onBack} />);
    const list = await screen.findByRole("list", { name: "Traditional Stonework images" });
    expect(list.className).toContain("grid-cols-2");
    expect(list.className).toContain("md:grid-cols-3");
    expect(list.className).toContain("lg:grid-cols-4");
    const cards = within(list).getAllByRole("listitem");
    expect(cards).toHaveLength(2);
    expect(within(cards[0]!).getByRole("img")).toHaveAttribute("alt", "Basalt wall");
    expect(within(cards[1]!).getByRole("img")).toHaveAttribute("alt", "traditional 2");
    expect(within(cards[1]!).getByRole("img")).toHaveAttribute("loading", "lazy");
    expect(within(cards[0]!).getByRole("button", { name: "Drag to reorder Basalt wall" })).toBeInTheDocument();
    expect(within(cards[1]!).getByRole("button", { name: "Drag to reorder traditional 2" })).toBeInTheDocument();
    expect(within(cards[0]!).getByRole("button", { name: "Delete image" })).toBeInTheDocument();
    expect(within(cards[0]!).getByRole("button", { name: "Edit caption: Basalt wall" })).toBeInTheDocument();
    expect(within(cards[1]!).getByRole("button", { name: "Click to add caption" })).toBeInTheDocument();
    // One tip per kind of screen; CSS shows the one that fits (a touch screen cannot hover).
    expect(
      screen.getByText("Tip: Drag images to reorder them, click captions to edit, hover for options."),
    ).toHaveClass("pointer-coarse:hidden");
    expect(screen.getByText("Tip: Press and hold the handle to drag, tap a caption to edit.")).toHaveClass(
      "hidden",
      "pointer-coarse:inline",
    );
    await userEvent.click(screen.getByRole("button", { name: "Back to Dashboard" }));
    expect(onBack).toHaveBeenCalled();
  });

  it("edits a caption: Cancel discards the draft, Save sends it", async () => {
    const { calls } = galleryRoutes([galleryImage("a"), galleryImage("b")]);
    renderWithClient(<GalleryManager galleryType="traditional" onBack={vi.fn()} />);
    const [first] = await screen.findAllByRole("button", { name: "Click to add caption" });
    await userEvent.click(first!);
    const field = screen.getByLabelText("Caption");
    expect(field).toHaveFocus();
    await userEvent.type(field, "Draft only");
    await userEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByLabelText("Caption")).toBeNull();
    expect(screen.queryByText("Draft only")).toBeNull();

    await userEvent.click(screen.getAllByRole("button", { name: "Click to add caption" })[0]!);
    expect(screen.getByLabelText("Caption")).toHaveValue("");
    await userEvent.type(screen.getByLabelText("Caption"), "Schist steps");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Caption updated successfully" }),
    );
    expect(calls.find((c) => c.method === "PATCH")).toEqual({
      method: "PATCH",
      url: "/api/admin/gallery-images/a",
      body: { caption: "Schist steps" },
    });
    // The list is refetched and shows the new caption.
    expect(await screen.findByRole("button", { name: "Edit caption: Schist steps" })).toBeInTheDocument();
    expect(screen.getAllByRole("img")[0]).toHaveAttribute("alt", "Schist steps");
  });

  it("says 'Update failed' when a caption cannot be saved", async () => {
    galleryRoutes([galleryImage("a")], { patch: 500 });
    renderWithClient(<GalleryManager galleryType="traditional" onBack={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Click to add caption" }));
    await userEvent.type(screen.getByLabelText("Caption"), "x");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Update failed",
        description: "Failed to update caption",
        variant: "destructive",
      }),
    );
    expect(screen.getByLabelText("Caption")).toHaveValue("x");
  });

  it("deletes only after confirmation", async () => {
    const { calls } = galleryRoutes([galleryImage("a"), galleryImage("b")]);
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    window.confirm = confirm;
    renderWithClient(<GalleryManager galleryType="traditional" onBack={vi.fn()} />);
    const [firstDelete] = await screen.findAllByRole("button", { name: "Delete image" });
    await userEvent.click(firstDelete!);
    expect(confirm).toHaveBeenCalledWith("Are you sure you want to delete this image?");
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);

    confirm.mockReturnValue(true);
    await userEvent.click(screen.getAllByRole("button", { name: "Delete image" })[0]!);
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Image deleted successfully" }),
    );
    expect(calls.find((c) => c.method === "DELETE")?.url).toBe("/api/admin/gallery-images/a");
    await waitFor(() => expect(screen.getAllByRole("img")).toHaveLength(1));
  });

  it("says 'Delete failed' when a delete fails", async () => {
    galleryRoutes([galleryImage("a")], { del: 500 });
    window.confirm = vi.fn(() => true);
    renderWithClient(<GalleryManager galleryType="traditional" onBack={vi.fn()} />);
    await userEvent.click(await screen.findByRole("button", { name: "Delete image" }));
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Delete failed",
        description: "Failed to delete image",
        variant: "destructive",
      }),
    );
    expect(screen.getAllByRole("img")).toHaveLength(1);
  });
});
