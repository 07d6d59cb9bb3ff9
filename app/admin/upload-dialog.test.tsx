import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { galleryImage, json, mockFetch, renderWithClient } from "./test-helpers";
import { UploadDialog } from "./upload-dialog";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

/** An XMLHttpRequest stand-in: every upload waits until the test answers it. */
class FakeXhr {
  static all: FakeXhr[] = [];
  url = "";
  body: File | null = null;
  withCredentials = false;
  headers: Record<string, string> = {};
  status = 0;
  statusText = "";
  responseText = "";
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.all.push(this);
  }
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: File) {
    this.body = body;
  }
  abort() {}
  progress(loaded: number) {
    this.upload.onprogress?.({ loaded, total: this.body!.size, lengthComputable: true });
  }
  respond(status: number, text = "") {
    this.status = status;
    this.responseText = text;
    this.onload?.();
  }
}

function image(name: string, size = 2048, type = "image/jpeg") {
  const file = new File(["x"], name, { type });
  Object.defineProperty(file, "size", { value: size });
  return file;
}

function choose(files: File[]) {
  const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
  fireEvent.change(input, { target: { files } });
}

function Harness({ currentCount = 3 }: { currentCount?: number }) {
  return (
    <UploadDialog
      galleryType="veneer"
      currentCount={currentCount}
      trigger={
        <button type="button" className="trigger">
          Upload Images
        </button>
      }
    />
  );
}

/** Renders the dialog and opens it with its trigger. */
async function openDialog(currentCount?: number) {
  renderWithClient(<Harness currentCount={currentCount} />);
  await userEvent.click(screen.getByRole("button", { name: "Upload Images" }));
  return screen.getByRole("dialog", { name: "Upload Images" });
}

async function expectClosed() {
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(screen.getByRole("button", { name: "Upload Images" })).toHaveFocus();
}

let uploadCounter = 0;
function uploadRoutes(register: (body: unknown) => Response = () => json(201, galleryImage("new"))) {
  return mockFetch([
    { method: "POST", path: "/api/objects/upload", respond: () => json(200, { uploadURL: `/api/uploads/u${++uploadCounter}?expires=1&signature=s` }) },
    { method: "PUT", path: "/api/admin/gallery-images", respond: ({ body }) => register(body) },
  ]);
}

/** Lets pending promise callbacks run. */
const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

describe("UploadDialog", () => {
  let alert: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    vi.mocked(toast).mockClear();
    FakeXhr.all = [];
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    alert = vi.fn();
    vi.stubGlobal("alert", alert);
    window.alert = alert as typeof window.alert;
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows its title, the limits and 'Choose Files', and no upload button yet", async () => {
    uploadRoutes();
    const dialog = await openDialog();
    expect(dialog).toHaveAccessibleDescription("Maximum 10 files, up to 20 MB each");
    expect(within(dialog).getByRole("button", { name: "Choose Files" })).toBeEnabled();
    expect(within(dialog).queryByRole("button", { name: /^Upload/ })).toBeNull();
    const input = dialog.querySelector('input[type="file"]')!;
    expect(input).toHaveAttribute("accept", "image/*");
    expect(input).toHaveAttribute("multiple");
  });

  it("lists chosen images with their size in KB, alerts about others, and removes on request", async () => {
    uploadRoutes();
    await openDialog();
    choose([image("wall.jpg", 2048), image("notes.txt", 100, "text/plain"), image("huge.jpg", MAX_UPLOAD_BYTES + 1)]);
    expect(alert.mock.calls).toEqual([["File notes.txt is not an image"], ["File huge.jpg is too large. Maximum size is 20MB"]]);
    const list = screen.getByRole("list", { name: "Chosen files" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(1);
    expect(list).toHaveTextContent("wall.jpg");
    expect(list).toHaveTextContent("2.0 KB");
    expect(screen.getByRole("button", { name: "Add More" })).toBeEnabled();

    choose([image("steps.png", 1536, "image/png")]);
    expect(screen.getByRole("button", { name: "Upload 2 Image(s)" })).toBeEnabled();
    await userEvent.click(screen.getByRole("button", { name: "Remove wall.jpg" }));
    expect(screen.getByRole("list", { name: "Chosen files" })).not.toHaveTextContent("wall.jpg");
    expect(screen.getByRole("button", { name: "Upload 1 Image(s)" })).toBeInTheDocument();
    // Nothing starts on its own.
    expect(FakeXhr.all).toHaveLength(0);
  });

  it("cuts the selection to ten files", async () => {
    uploadRoutes();
    await openDialog();
    choose(Array.from({ length: 7 }, (_, i) => image(`a${i}.jpg`)));
    choose(Array.from({ length: 6 }, (_, i) => image(`b${i}.jpg`)));
    expect(within(screen.getByRole("list", { name: "Chosen files" })).getAllByRole("listitem")).toHaveLength(10);
    expect(screen.getByRole("button", { name: "Upload 10 Image(s)" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Add More" })).toBeDisabled();
    expect(screen.queryByText("b3.jpg")).toBeNull();
    expect(screen.getByText("b2.jpg")).toBeInTheDocument();
  });

  it("uploads each file directly with real progress, registers it with the running sort order, then closes", async () => {
    const { calls } = uploadRoutes();
    await openDialog(3);
    choose([image("one.jpg", 1000), image("two.jpg", 3000)]);
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
    // The dialog cannot be closed mid-upload.
    expect(screen.getByRole("button", { name: "Close" })).toBeDisabled();
    await act(async () => first.respond(200, '{"message":"Upload complete"}'));
    await settle();

    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    const second = FakeXhr.all[1]!;
    act(() => second.progress(1500));
    expect(screen.getByRole("button", { name: "Uploading... 63%" })).toBeInTheDocument();
    await act(async () => second.respond(200));
    await settle();

    await expectClosed();
    const registered = calls.filter((c) => c.method === "PUT").map((c) => c.body);
    expect(registered).toEqual([
      { imageURL: first.url, galleryType: "veneer", caption: "", sortOrder: "3" },
      { imageURL: second.url, galleryType: "veneer", caption: "", sortOrder: "4" },
    ]);
    expect(toast).toHaveBeenCalledTimes(1);
    expect(toast).toHaveBeenCalledWith({ title: "Success", description: "Image uploaded successfully" });
  });

  it("carries on past a failed file and reports it with the server's reason", async () => {
    const { calls } = uploadRoutes();
    await openDialog(0);
    choose([image("bad.jpg"), image("good.jpg")]);
    await userEvent.click(screen.getByRole("button", { name: "Upload 2 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await act(async () =>
      FakeXhr.all[0]!.respond(415, '{"message":"The file is not a supported image (JPEG, PNG, WebP, AVIF or GIF)"}'),
    );
    await settle();
    await waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    await act(async () => FakeXhr.all[1]!.respond(200));
    await settle();
    await expectClosed();
    expect(calls.filter((c) => c.method === "PUT").map((c) => (c.body as { sortOrder: string }).sortOrder)).toEqual(["0"]);
    expect(toast).toHaveBeenCalledWith({
      title: "Upload failed",
      description: "1 of 2 images uploaded. bad.jpg: The file is not a supported image (JPEG, PNG, WebP, AVIF or GIF)",
      variant: "destructive",
    });
  });

  it("says 'Failed to upload image' when the connection drops", async () => {
    uploadRoutes();
    await openDialog();
    choose([image("wall.jpg")]);
    await userEvent.click(screen.getByRole("button", { name: "Upload 1 Image(s)" }));
    await waitFor(() => expect(FakeXhr.all).toHaveLength(1));
    await act(async () => FakeXhr.all[0]!.onerror?.());
    await waitFor(() =>
      expect(toast).toHaveBeenCalledWith({ title: "Upload failed", description: "wall.jpg: Failed to upload image", variant: "destructive" }),
    );
  });
});
