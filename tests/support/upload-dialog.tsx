import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { expect, vi } from "vitest";
import { galleryImage, json, mockFetch, renderWithClient } from "~/admin/test-helpers";
import { MAGIC, testFile } from "~/admin/test-files";
import { UploadDialog } from "~/admin/galleries/upload-dialog";

/** The upload dialog's component tests: its harness, files to choose, and the fake server behind it. */

/** A JPEG (by its first bytes) that claims `size` bytes. */
export const image = (name: string, size = 2048) => testFile(name, "image/jpeg", MAGIC.jpeg, size);

/** Chooses files, then waits until the list holds `listed` files (the picker reads each file's first bytes first). */
export async function choose(files: File[], listed: number) {
  const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
  fireEvent.change(input, { target: { files } });
  await waitFor(() => expect(screen.queryAllByRole("listitem")).toHaveLength(listed));
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
export async function openDialog(currentCount?: number) {
  renderWithClient(<Harness currentCount={currentCount} />);
  await userEvent.click(screen.getByRole("button", { name: "Upload Images" }));
  return screen.getByRole("dialog", { name: "Upload Images" });
}

export async function expectClosed() {
  await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  expect(screen.getByRole("button", { name: "Upload Images" })).toHaveFocus();
}

let uploadCounter = 0;
export function uploadRoutes(register: (body: unknown) => Response = () => json(201, galleryImage("new"))) {
  return mockFetch([
    {
      method: "POST",
      path: "/api/objects/upload",
      respond: () => json(200, { uploadURL: `/api/uploads/u${++uploadCounter}?expires=1&signature=s` }),
    },
    { method: "PUT", path: "/api/admin/gallery-images", respond: ({ body }) => register(body) },
  ]);
}

/** The list item of a chosen file. */
export const fileItem = (name: string) =>
  within(screen.getByRole("list", { name: "Chosen files" }))
    .getByText(name)
    .closest("li")!;

/** jsdom has no object URLs: counts those made and revoked instead. */
export function countObjectUrls() {
  const created: string[] = [];
  const revoked: string[] = [];
  URL.createObjectURL = vi.fn((file: Blob) => {
    const url = `blob:test/${(file as File).name}/${created.length}`;
    created.push(url);
    return url;
  });
  URL.revokeObjectURL = vi.fn((url: string) => void revoked.push(url));
  return { created, revoked };
}
