import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { galleryImage, json, mockFetch } from "../test-helpers";
import { MAGIC, testFile } from "../test-files";
import { FakeXhr } from "../../../tests/support/fake-xhr";
import {
  choose,
  countObjectUrls,
  expectClosed,
  fileItem,
  image,
  openDialog,
  uploadRoutes,
} from "../../../tests/support/upload-dialog";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

/** Lets pending promise callbacks run. */
const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

// Tests chain many user events; on a 2-core machine shared with other runs some need more than 5 s.
describe("UploadDialog", { timeout: 20_000 }, () => {
  let alert: ReturnType<typeof vi.fn>;
  let created: string[];
  let revoked: string[];
  beforeEach(() => {
    vi.mocked(toast).mockClear();
    FakeXhr.all = [];
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    alert = vi.fn();
    vi.stubGlobal("alert", alert);
    window.alert = alert as typeof window.alert;
    ({ created, revoked } = countObjectUrls());
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows its title, the limits and 'Choose Files', and no upload button yet", async () => {
    uploadRoutes();
    const dialog = await openDialog();
    expect(dialog).toHaveAccessibleDescription("Maximum 10 files, up to 20 MB each");
    expect(dialog).toHaveTextContent(
      "Photos go up at the largest size the website shows (2,400 pixels wide); your full-size photos stay on your phone.",
    );
    expect(within(dialog).getByRole("button", { name: "Choose Files" })).toBeEnabled();
    expect(within(dialog).queryByRole("button", { name: /^Upload/ })).toBeNull();
    const input = dialog.querySelector('input[type="file"]')!;
    expect(input).toHaveAttribute("accept", "image/*");
    expect(input).toHaveAttribute("multiple");
  });

  it("lists chosen images with a thumbnail, size in KB and a caption field; alerts about others; removes on request", async () => {
    uploadRoutes();
    await openDialog();
    await choose(
      [
        image("wall.jpg", 2048),
        testFile("notes.txt", "text/plain", MAGIC.text, 100),
        testFile("IMG_0412.HEIC", "image/heic", MAGIC.heic, 3_000_000),
        image("huge.jpg", MAX_UPLOAD_BYTES + 1),
      ],
      1,
    );
    expect(alert.mock.calls).toEqual([
      ["File notes.txt is not an image"],
      ["File IMG_0412.HEIC is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF."],
      ["File huge.jpg is too large. Maximum size is 20MB"],
    ]);
    const list = screen.getByRole("list", { name: "Chosen files" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(1);
    expect(list).toHaveTextContent("wall.jpg");
    expect(list).toHaveTextContent("2.0 KB");
    // The thumbnail: the file itself through an object URL, decoded off the main thread, small.
    const thumbnail = fileItem("wall.jpg").querySelector("img")!;
    expect(thumbnail).toHaveAttribute("src", created[0]);
    expect(thumbnail).toHaveAttribute("decoding", "async");
    expect(thumbnail).toHaveAttribute("width", "56");
    expect(thumbnail).toHaveAttribute("alt", "");
    const caption = screen.getByLabelText("Caption for wall.jpg (optional)");
    expect(caption).toHaveAttribute("enterkeyhint", "done");
    expect(caption).toHaveAttribute("maxlength", "500");
    expect(screen.getByRole("button", { name: "Add More" })).toBeEnabled();

    await choose([testFile("steps.png", "image/png", MAGIC.png, 1536)], 2);
    expect(screen.getByRole("button", { name: "Upload 2 Image(s)" })).toBeEnabled();
    await userEvent.click(screen.getByRole("button", { name: "Remove wall.jpg" }));
    expect(screen.getByRole("list", { name: "Chosen files" })).not.toHaveTextContent("wall.jpg");
    expect(revoked).toEqual([created[0]]);
    expect(screen.getByRole("button", { name: "Upload 1 Image(s)" })).toBeInTheDocument();
    // Nothing starts on its own.
    expect(FakeXhr.all).toHaveLength(0);

    // Cancel forgets the list and lets go of every thumbnail.
    await userEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await expectClosed();
    expect([...revoked].sort()).toEqual([...created].sort());
  });

  it("cuts the selection to ten files", async () => {
    uploadRoutes();
    await openDialog();
    await choose(
      Array.from({ length: 7 }, (_, i) => image(`a${i}.jpg`)),
      7,
    );
    await choose(
      Array.from({ length: 6 }, (_, i) => image(`b${i}.jpg`)),
      10,
    );
    expect(within(screen.getByRole("list", { name: "Chosen files" })).getAllByRole("listitem")).toHaveLength(10);
    expect(screen.getByRole("button", { name: "Upload 10 Image(s)" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Add More" })).toBeDisabled();
    expect(screen.queryByText("b3.jpg")).toBeNull();
    expect(screen.getByText("b2.jpg")).toBeInTheDocument();
  });

  it("uploads each file with real progress and its own state, registers it with its caption, then closes", async () => {
    const { calls } = uploadRoutes();
    await openDialog(3);
    await choose([image("one.jpg", 1000), image("two.jpg", 3000)], 2);
    await userEvent.type(screen.getByLabelText("Caption for one.jpg (optional)"), "Basalt wall");
    await userEvent.click(screen.getByRole("button", { name: "Upload 2 Image(s)" }));

    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    const first = FakeXhr.all[0]!;
    expect(first.url).toMatch(/^\/api\/uploads\/u\d+\?expires=1&signature=s$/);
    expect(first.withCredentials).toBe(false);
    expect(first.headers["Content-Type"]).toBe("image/jpeg");
    expect(first.body?.name).toBe("one.jpg");
    act(() => first.progress(500));
    const progressbar = screen.getByRole("progressbar", { name: "Upload progress" });
    expect(progressbar).toHaveAttribute("aria-valuenow", "13");
    expect(screen.getByRole("button", { name: "Uploading... 13%" })).toBeDisabled();
    expect(fileItem("one.jpg")).toHaveTextContent("Uploading 50%");
    expect(fileItem("two.jpg")).toHaveTextContent("Waiting");
    // The dialog may be closed mid-upload: the photos keep going up (decision 0062), and it says so.
    expect(screen.getByRole("button", { name: "Close" })).toBeEnabled();
    expect(screen.getByRole("button", { name: "Continue in background" })).toBeEnabled();
    expect(screen.getByRole("dialog")).toHaveTextContent("You can close this window: the photos keep uploading");
    // A waiting file's caption can still be written; it is read when that file is registered.
    await userEvent.type(screen.getByLabelText("Caption for two.jpg (optional)"), "Schist steps");
    await act(async () => first.respond(200, '{"message":"Upload complete"}'));
    await settle();

    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    expect(fileItem("one.jpg")).toHaveTextContent("Done");
    expect(fileItem("two.jpg")).toHaveTextContent("Uploading 0%");
    const second = FakeXhr.all[1]!;
    act(() => second.progress(1500));
    expect(screen.getByRole("button", { name: "Uploading... 63%" })).toBeInTheDocument();
    await act(async () => second.respond(200));
    await settle();

    await expectClosed();
    // Each URL was asked for with the file's size and type (the server refuses or signs them).
    expect(calls.filter((c) => c.method === "POST").map((c) => c.body)).toEqual([
      { size: 1000, type: "image/jpeg" },
      { size: 3000, type: "image/jpeg" },
    ]);
    const registrations = calls.filter((c) => c.method === "PUT").map((c) => c.body);
    expect(registrations).toEqual([
      { imageURL: first.url, galleryType: "veneer", caption: "Basalt wall", sortOrder: "3" },
      { imageURL: second.url, galleryType: "veneer", caption: "Schist steps", sortOrder: "4" },
    ]);
    expect(toast).toHaveBeenCalledTimes(1);
    expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Image uploaded successfully" });
    expect([...revoked].sort()).toEqual([...created].sort());
  });

  it("shows 'Processing...' while the server turns the upload into an image, and sends the next photo meanwhile", async () => {
    const finish: ((res: Response) => void)[] = [];
    const { calls } = uploadRoutes(
      () => new Promise<Response>((resolve) => finish.push(resolve)) as unknown as Response,
    );
    await openDialog(0);
    await choose([image("wall.jpg"), image("steps.jpg")], 2);
    await userEvent.click(screen.getByRole("button", { name: "Upload 2 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await act(async () => FakeXhr.all[0]!.respond(200));
    await waitFor(() => expect(fileItem("wall.jpg")).toHaveTextContent("Processing..."));
    // The uplink does not wait for the server: steps.jpg goes up while wall.jpg is processed.
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    expect(fileItem("steps.jpg")).toHaveTextContent("Uploading 0%");
    await act(async () => FakeXhr.all[1]!.respond(200));
    expect(fileItem("steps.jpg")).toHaveTextContent("Processing...");
    // Registered one at a time, in order: steps.jpg once wall.jpg is in.
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(1);
    await act(async () => finish[0]!(json(201, galleryImage("wall"))));
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toHaveLength(2));
    expect(calls.filter((c) => c.method === "PUT").map((c) => (c.body as { sortOrder: string }).sortOrder)).toEqual([
      "0",
      "1",
    ]);
    await act(async () => finish[1]!(json(201, galleryImage("steps"))));
    await expectClosed();
  });

  it("keeps a failed file listed with its reason while the others upload; Retry sends it again on a new URL", async () => {
    const { calls } = uploadRoutes();
    await openDialog(0);
    await choose([image("bad.jpg"), image("good.jpg")], 2);
    await userEvent.type(screen.getByLabelText("Caption for bad.jpg (optional)"), "Garden steps");
    await userEvent.click(screen.getByRole("button", { name: "Upload 2 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await act(async () => FakeXhr.all[0]!.respond(500, '{"message":"The server had a hiccup"}'));
    await settle();
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    await act(async () => FakeXhr.all[1]!.respond(200));
    await settle();

    // Still open: good.jpg is done, bad.jpg failed with the server's reason and its caption kept.
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Upload failed",
        description: "1 of 2 images uploaded. bad.jpg: The server had a hiccup",
        variant: "destructive",
      }),
    );
    const dialog = screen.getByRole("dialog", { name: "Upload Images" });
    expect(fileItem("good.jpg")).toHaveTextContent("Done");
    expect(within(fileItem("good.jpg")).queryByRole("button", { name: "Remove good.jpg" })).toBeNull();
    expect(fileItem("bad.jpg")).toHaveTextContent("Failed: The server had a hiccup");
    expect(screen.getByRole("status")).toHaveTextContent("good.jpg: Done");
    expect(screen.getByLabelText("Caption for bad.jpg (optional)")).toHaveValue("Garden steps");
    expect(within(dialog).queryByRole("progressbar")).toBeNull();
    expect(within(dialog).getByRole("button", { name: "Upload 1 Image(s)" })).toBeEnabled();

    await userEvent.click(within(dialog).getByRole("button", { name: "Retry bad.jpg" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(3));
    const retry = FakeXhr.all[2]!;
    expect(retry.body?.name).toBe("bad.jpg");
    expect(retry.url).not.toBe(FakeXhr.all[0]!.url);
    await act(async () => retry.respond(200));
    await settle();

    await expectClosed();
    expect(calls.filter((c) => c.method === "POST")).toHaveLength(3);
    expect(
      calls.filter((c) => c.method === "PUT").map((c) => (c.body as { caption: string; imageURL: string }).caption),
    ).toEqual(["", "Garden steps"]);
    expect(toast).toHaveBeenLastCalledWith({ title: "Success", description: "Image uploaded successfully" });
  });

  it("says 'Failed to upload image' when the connection drops, and stays open for a retry", async () => {
    uploadRoutes();
    await openDialog();
    await choose([image("wall.jpg")], 1);
    await userEvent.click(screen.getByRole("button", { name: "Upload 1 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await act(async () => FakeXhr.all[0]!.onerror?.());
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({
        title: "Upload failed",
        description: "wall.jpg: Failed to upload image",
        variant: "destructive",
      }),
    );
    expect(fileItem("wall.jpg")).toHaveTextContent("Failed: Failed to upload image");
    expect(screen.getByRole("button", { name: "Retry wall.jpg" })).toBeEnabled();
  });

  it("keeps uploading once closed mid-upload; the toast comes when the photos are up, and the list is then empty", async () => {
    const { calls } = uploadRoutes();
    await openDialog(0);
    await choose([image("wall.jpg", 1000)], 1);
    await userEvent.click(screen.getByRole("button", { name: "Upload 1 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await userEvent.click(screen.getByRole("button", { name: "Continue in background" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());

    await act(async () => FakeXhr.all[0]!.progress(600));
    await act(async () => FakeXhr.all[0]!.respond(200));
    await settle();
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Image uploaded successfully" }),
    );
    expect(calls.filter((c) => c.method === "PUT").map((c) => (c.body as { imageURL: string }).imageURL)).toEqual([
      FakeXhr.all[0]!.url,
    ]);
    await userEvent.click(screen.getByRole("button", { name: "Upload Images" }));
    expect(within(screen.getByRole("dialog")).getByRole("button", { name: "Choose Files" })).toBeInTheDocument();
  });

  it("says why, where photos go up in one piece (a bucket that hides the ETag)", async () => {
    mockFetch([
      {
        method: "GET",
        path: "/api/uploads/resumable",
        respond: () =>
          json(200, {
            available: false,
            reason: "The photo bucket's CORS rule does not let this page read the ETag header.",
          }),
      },
    ]);
    const dialog = await openDialog();
    await waitFor(() =>
      expect(within(dialog).getByRole("note")).toHaveTextContent(
        "If the connection drops, a photo starts again from the beginning. The photo bucket's CORS rule does not let this page read the ETag header.",
      ),
    );
  });

  it("sends a photo in parts where the site takes them; a dropped part waits for the connection and only it is sent again", async () => {
    const parts = [1, 2, 3].map((partNumber) => ({
      partNumber,
      bytes: partNumber < 3 ? 1000 : 500,
      url: `/api/uploads/resumable/u1/parts/${partNumber}`,
    }));
    const { calls } = mockFetch([
      { method: "GET", path: "/api/uploads/resumable", respond: () => json(200, { available: true, partBytes: 1000 }) },
      {
        method: "POST",
        path: "/api/uploads/resumable",
        respond: () =>
          json(201, {
            uploadId: "u1",
            partBytes: 1000,
            partCount: 3,
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
    await openDialog(0);
    // A file whose bytes are really there: its parts are slices of it.
    const bytes = new Uint8Array(2500).map((_, i) => i % 251);
    bytes.set(MAGIC.jpeg);
    await choose([new File([bytes], "wall.jpg", { type: "image/jpeg" })], 1);
    await userEvent.click(screen.getByRole("button", { name: "Upload 1 Image(s)" }));
    const answer = async (index: number) => {
      await waitFor(() => expect(FakeXhr.all).toHaveLength(index + 1));
      await act(async () => FakeXhr.all[index]!.respond(200, "{}", { etag: `"etag-${index}"` }));
    };
    await answer(0);
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    await act(async () => FakeXhr.all[1]!.progress(400));
    // The signal drops in the middle of part 2.
    await act(async () => FakeXhr.all[1]!.onerror?.());
    await waitFor(() => expect(fileItem("wall.jpg")).toHaveTextContent("Waiting for the connection (40% sent)"));
    // It comes back: the browser says so, and part 2 goes again at once.
    await act(async () => void window.dispatchEvent(new Event("online")));
    await answer(2);
    await answer(3);
    await expectClosed();
    expect(FakeXhr.all.map((xhr) => xhr.url)).toEqual([parts[0]!.url, parts[1]!.url, parts[1]!.url, parts[2]!.url]);
    // No Content-Type of its own on a part; the bytes are the file's own, in order.
    expect(FakeXhr.all.map((xhr) => xhr.body!.size)).toEqual([1000, 1000, 1000, 500]);
    expect(calls.find((c) => c.url === "/api/uploads/resumable/u1/complete")?.body).toEqual({
      parts: [
        { partNumber: 1, etag: '"etag-0"' },
        { partNumber: 2, etag: '"etag-2"' },
        { partNumber: 3, etag: '"etag-3"' },
      ],
    });
    expect(calls.find((c) => c.method === "PUT")?.body).toMatchObject({
      imageURL: "/api/uploads/u1",
      galleryType: "veneer",
    });
    expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Image uploaded successfully" });
  });

  it("waits out the site's 'not now' for a photo (the photos already on their way first), saying so, and sends it when the site takes it", async () => {
    let refusals = 0;
    mockFetch([
      { method: "GET", path: "/api/uploads/resumable", respond: () => json(200, { available: true, partBytes: 1000 }) },
      {
        method: "POST",
        path: "/api/uploads/resumable",
        respond: () =>
          // More "not now" answers than a busy server is ever given.
          ++refusals <= 7
            ? json(429, { message: "Let the photos already on their way finish first." })
            : json(201, {
                uploadId: "u1",
                partBytes: 1000,
                partCount: 1,
                parts: [{ partNumber: 1, bytes: 1000, url: "/api/uploads/resumable/u1/parts/1" }],
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
    await openDialog(0);
    await choose([testFile("wall.jpg", "image/jpeg", MAGIC.jpeg, 1000)], 1);
    await userEvent.click(screen.getByRole("button", { name: "Upload 1 Image(s)" }));
    for (let answered = 1; answered <= 7; answered++) {
      await waitFor(() => expect(refusals).toBe(answered));
      await waitFor(() =>
        expect(fileItem("wall.jpg")).toHaveTextContent("Waiting: Let the photos already on their way finish first."),
      );
      // The next try without waiting its turn: as when the browser says it is online again.
      await act(async () => void window.dispatchEvent(new Event("online")));
    }
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await act(async () => FakeXhr.all[0]!.respond(200, "{}", { etag: '"etag-0"' }));
    await expectClosed();
    expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Image uploaded successfully" });
  });
});
