import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackgroundUploadsProvider, useConfirmLeaveWhileUploading } from "./background-uploads";
import { galleryImage, json, mockFetch, renderWithClient } from "../test-helpers";
import { MAGIC, testFile } from "../test-files";
import { UploadDialog } from "./upload-dialog";
import { UploadTray } from "./upload-tray";
import { FakeXhr } from "../../../tests/support/fake-xhr";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

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

async function startUpload(names: string[]) {
  await userEvent.click(screen.getByRole("button", { name: "Upload Images" }));
  fireEvent.change(document.querySelector<HTMLInputElement>('input[type="file"]')!, {
    target: { files: names.map((name) => testFile(name, "image/jpeg", MAGIC.jpeg, 1000)) },
  });
  const upload = await screen.findByRole("button", { name: `Upload ${names.length} Image(s)` });
  await userEvent.click(upload);
  await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
  await userEvent.click(screen.getByRole("button", { name: "Continue in background" }));
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
}

const tray = () => screen.getByRole("region", { name: "Photo uploads" });
/** Whether leaving the page now would make the browser ask first. */
const unloadIsHeldBack = () => !window.dispatchEvent(new Event("beforeunload", { cancelable: true }));

// Each test chains many user events; on a 2-core machine shared with other runs they need more than 5 s.
describe("UploadTray", { timeout: 20_000 }, () => {
  beforeEach(() => {
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

  it("puts each photo in its gallery as soon as it is in, before the next one is sent", async () => {
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
