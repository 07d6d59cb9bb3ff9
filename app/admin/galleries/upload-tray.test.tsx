import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { onlineManager } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackgroundUploadsProvider, useConfirmLeaveWhileUploading } from "./background-uploads";
import { galleryImage, json, mockFetch, renderWithClient } from "../test-helpers";
import { MAGIC, testFile } from "../test-files";
import { shrinkPhoto } from "~/components/photo-shrink/photo-shrink";
import { UploadDialog } from "./upload-dialog";
import { UploadTray } from "./upload-tray";
import { FakeXhr } from "../../../tests/support/fake-xhr";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));
// jsdom has no worker or canvas to shrink with (the browser tests do): the photo goes as it is unless a test says.
vi.mock("~/components/photo-shrink/photo-shrink", () => ({
  shrinkPhoto: vi.fn((file: File) => Promise.resolve(file)),
}));

let uploads = 0;
function routes() {
  return mockFetch([
    {
      method: "POST",
      path: "/api/objects/upload",
      respond: () => json(200, { uploadURL: `/api/uploads/t${++uploads}?expires=1&signature=s` }),
    },
    { method: "PUT", path: "/api/admin/gallery-images", respond: () => json(201, galleryImage("new")) },
  ]);
}

/** A site that takes photos in two parts of 1,000 bytes; while `offline.now`, every call fails as an offline browser's fetch does. */
function partRoutes(offline: { now: boolean }) {
  const parts = [1, 2].map((partNumber) => ({
    partNumber,
    bytes: 1000,
    url: `/api/uploads/resumable/u1/parts/${partNumber}`,
  }));
  const { calls, fetchMock } = mockFetch([
    { method: "GET", path: "/api/uploads/resumable", respond: () => json(200, { available: true, partBytes: 1000 }) },
    {
      method: "POST",
      path: "/api/uploads/resumable",
      respond: () =>
        json(201, {
          uploadId: "u1",
          partBytes: 1000,
          partCount: 2,
          parts,
          expiresAt: new Date(Date.now() + 900_000).toISOString(),
        }),
    },
    {
      method: "POST",
      path: "/api/uploads/resumable/u1/complete",
      respond: () => json(200, { imageURL: "/api/uploads/u1" }),
    },
    { method: "PUT", path: "/api/admin/gallery-images", respond: () => json(201, galleryImage("new")) },
  ]);
  const online = fetchMock.getMockImplementation()!;
  fetchMock.mockImplementation((...args) =>
    offline.now ? Promise.reject(new TypeError("Failed to fetch")) : online(...args),
  );
  return calls;
}

/** A button elsewhere in the admin that leaves it (as Logout does), through the guard. */
function LeaveButton({ onLeave }: { onLeave: () => void }) {
  const confirmLeave = useConfirmLeaveWhileUploading();
  return (
    <button type="button" onClick={() => confirmLeave(onLeave)}>
      Leave
    </button>
  );
}

function renderAdmin(onLeave = vi.fn()) {
  return renderWithClient(
    <BackgroundUploadsProvider>
      <UploadDialog galleryType="veneer" currentCount={0} trigger={<button type="button">Upload Images</button>} />
      <LeaveButton onLeave={onLeave} />
      <UploadTray />
    </BackgroundUploadsProvider>,
  );
}

async function startUpload(names: string[], { size = 1000, firstPart = true } = {}) {
  await userEvent.click(screen.getByRole("button", { name: "Upload Images" }));
  fireEvent.change(document.querySelector<HTMLInputElement>('input[type="file"]')!, {
    target: {
      files: names.map(
        (name) =>
          new File([Uint8Array.from({ length: size }, (_, i) => MAGIC.jpeg[i] ?? 0)], name, { type: "image/jpeg" }),
      ),
    },
  });
  const upload = await screen.findByRole("button", { name: `Upload ${names.length} Image(s)` });
  await userEvent.click(upload);
  if (firstPart) await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
  await userEvent.click(screen.getByRole("button", { name: "Continue in background" }));
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
}

const tray = () => screen.getByRole("region", { name: "Photo uploads" });
/** Whether leaving the page now would make the browser ask first. */
const unloadIsHeldBack = () => !window.dispatchEvent(new Event("beforeunload", { cancelable: true }));

// Each test chains many user events; on a 2-core machine shared with other runs they need more than 5 s.
describe("UploadTray", { timeout: 20_000 }, () => {
  beforeEach(() => {
    vi.mocked(shrinkPhoto).mockClear();
    FakeXhr.all = [];
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    URL.createObjectURL = vi.fn(() => "blob:test");
    URL.revokeObjectURL = vi.fn();
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows nothing while no photo is going up", () => {
    routes();
    renderAdmin();
    expect(screen.queryByRole("region", { name: "Photo uploads" })).toBeNull();
    expect(unloadIsHeldBack()).toBe(false);
  });

  it("shows each photo going up with its gallery and progress once the window is closed, and goes when they are in", async () => {
    routes();
    renderAdmin();
    await startUpload(["wall.jpg", "steps.jpg"]);
    expect(within(tray()).getByRole("button", { name: "Uploading 2 photos" })).toHaveAttribute("aria-expanded", "true");
    act(() => FakeXhr.all[0]!.progress(600));
    const wall = within(tray()).getByText("wall.jpg").closest("li")!;
    expect(wall).toHaveTextContent("Veneer Stonework");
    expect(wall).toHaveTextContent("Uploading 60%");
    expect(within(wall).getByRole("progressbar", { name: "wall.jpg upload progress" })).toHaveAttribute(
      "aria-valuenow",
      "60",
    );
    expect(within(tray()).getByText("steps.jpg").closest("li")).toHaveTextContent("Waiting");

    // Folded to its heading, and open again.
    await userEvent.click(within(tray()).getByRole("button", { name: "Uploading 2 photos" }));
    expect(within(tray()).getByRole("list", { hidden: true })).not.toBeVisible();
    await userEvent.click(within(tray()).getByRole("button", { name: "Uploading 2 photos" }));

    await act(async () => FakeXhr.all[0]!.respond(200));
    await waitFor(() => expect(within(tray()).queryByText("wall.jpg")).toBeNull());
    expect(within(tray()).getByRole("button", { name: "Uploading 1 photo" })).toBeInTheDocument();
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    await act(async () => FakeXhr.all[1]!.respond(200));
    await waitFor(() => expect(screen.queryByRole("region", { name: "Photo uploads" })).toBeNull());
  });

  it("puts each photo in its gallery as soon as it is in, while the next one goes up", async () => {
    routes();
    const { queryClient } = renderAdmin();
    queryClient.setQueryData(["/api/galleries/veneer"], []);
    await startUpload(["wall.jpg", "steps.jpg"]);
    expect(queryClient.getQueryState(["/api/galleries/veneer"])?.isInvalidated).toBe(false);
    await act(async () => FakeXhr.all[0]!.respond(200));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    // The second photo is still going up; the gallery already shows the first.
    expect(queryClient.getQueryState(["/api/galleries/veneer"])?.isInvalidated).toBe(true);
    expect(within(tray()).getByRole("button", { name: "Uploading 1 photo" })).toBeInTheDocument();
  });

  it("sends a camera JPEG as the shrinker's gallery copy, and any other photo as it is", async () => {
    routes();
    const copy = testFile("wall.jpg", "image/jpeg");
    vi.mocked(shrinkPhoto).mockResolvedValueOnce(copy);
    renderAdmin();
    await userEvent.click(screen.getByRole("button", { name: "Upload Images" }));
    const camera = testFile("wall.jpg", "image/jpeg", MAGIC.jpeg, 3_000_000);
    const drawing = testFile("plan.png", "image/png", MAGIC.png);
    const choose = (file: File) =>
      fireEvent.change(document.querySelector<HTMLInputElement>('input[type="file"]')!, { target: { files: [file] } });
    // One at a time: the copy is made from the moment a photo is chosen.
    choose(camera);
    await waitFor(() => expect(shrinkPhoto).toHaveBeenCalledTimes(1));
    choose(drawing);
    await userEvent.click(await screen.findByRole("button", { name: "Upload 2 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    expect(FakeXhr.all[0]!.body).toBe(copy);
    await act(async () => FakeXhr.all[0]!.respond(200));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    expect(FakeXhr.all[1]!.body).toBe(drawing);
    expect(vi.mocked(shrinkPhoto).mock.calls.map(([file, plan]) => [file.name, plan])).toEqual([
      ["wall.jpg", "gallery"],
    ]);
  });

  it("keeps a photo that failed, with its reason, until it is dismissed", async () => {
    routes();
    renderAdmin();
    await startUpload(["wall.jpg"]);
    await act(async () =>
      FakeXhr.all[0]!.respond(415, '{"message":"The file is not a supported image (JPEG, PNG, WebP, AVIF or GIF)"}'),
    );
    await waitFor(() =>
      expect(within(tray()).getByRole("button", { name: "1 photo not uploaded" })).toBeInTheDocument(),
    );
    expect(within(tray()).getByText("wall.jpg").closest("li")).toHaveTextContent(
      "Failed: The file is not a supported image",
    );
    expect(unloadIsHeldBack()).toBe(false);
    await userEvent.click(within(tray()).getByRole("button", { name: "Dismiss wall.jpg" }));
    expect(screen.queryByRole("region", { name: "Photo uploads" })).toBeNull();
  });

  it("says what the connection is doing: waiting for it while offline, sending once it is back", async () => {
    const offline = { now: true };
    const calls = partRoutes(offline);
    onlineManager.setOnline(false);
    try {
      renderAdmin();
      // Chosen with no signal at all: the photo waits for one, and says so.
      await startUpload(["wall.jpg"], { size: 2000, firstPart: false });
      const line = () => within(tray()).getByText("wall.jpg").closest("li")!;
      await waitFor(() => expect(line()).toHaveTextContent("Waiting for the connection (0% sent)"));
      expect(FakeXhr.all).toHaveLength(0);

      offline.now = false;
      await act(async () => void window.dispatchEvent(new Event("online")));
      await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
      await act(async () => FakeXhr.all[0]!.respond(200, "{}", { etag: '"e1"' }));
      await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
      act(() => FakeXhr.all[1]!.progress(300));
      expect(line()).toHaveTextContent("Uploading 65%");

      // The signal drops in the middle of part 2: only what the server confirmed counts.
      offline.now = true;
      await act(async () => FakeXhr.all[1]!.onerror?.());
      await waitFor(() => expect(line()).toHaveTextContent("Waiting for the connection (50% sent)"));
      expect(line().querySelector("svg.lucide-wifi-off")).not.toBeNull();

      // Back: the moment part 2's bytes move again, the line says it is sending, before the part is in.
      offline.now = false;
      await act(async () => void window.dispatchEvent(new Event("online")));
      await waitFor(() => expect(FakeXhr.all).toHaveLength(3));
      act(() => FakeXhr.all[2]!.progress(200));
      expect(line()).toHaveTextContent("Uploading 60%");
      await act(async () => FakeXhr.all[2]!.respond(200, "{}", { etag: '"e2"' }));
      await waitFor(() => expect(screen.queryByRole("region", { name: "Photo uploads" })).toBeNull());
      expect(calls.filter((c) => c.method === "PUT")).toHaveLength(1);
    } finally {
      onlineManager.setOnline(true);
    }
  });

  it("asks before leaving while photos are going up: the browser on unload, and the app before it leaves itself", async () => {
    routes();
    const onLeave = vi.fn();
    renderAdmin(onLeave);
    await startUpload(["wall.jpg"]);
    expect(unloadIsHeldBack()).toBe(true);

    await userEvent.click(screen.getByRole("button", { name: "Leave" }));
    const dialog = screen.getByRole("dialog", { name: "Photos are still uploading" });
    expect(dialog).toHaveTextContent(
      "If you leave now, the photos that are not up yet will not be added to your galleries.",
    );
    expect(within(dialog).getByRole("button", { name: "Keep uploading" })).toHaveFocus();
    await userEvent.click(within(dialog).getByRole("button", { name: "Keep uploading" }));
    expect(onLeave).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole("button", { name: "Leave" }));
    await userEvent.click(screen.getByRole("button", { name: "Leave anyway" }));
    expect(onLeave).toHaveBeenCalledTimes(1);

    // Once the photo is in, leaving needs no question.
    await act(async () => FakeXhr.all[0]!.respond(200));
    await waitFor(() => expect(screen.queryByRole("region", { name: "Photo uploads" })).toBeNull());
    expect(unloadIsHeldBack()).toBe(false);
    await userEvent.click(screen.getByRole("button", { name: "Leave" }));
    expect(onLeave).toHaveBeenCalledTimes(2);
  });
});
