import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BUCKET_PRIVACY_KEY, BucketPrivacyNotice } from "./bucket-privacy-notice";
import { json, mockFetch, renderWithClient } from "../test-helpers";

const PRIVACY = "/api/admin/storage/privacy";

describe("BucketPrivacyNotice", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the red notice, word for word, with the addresses that answered under the details", async () => {
    mockFetch([
      {
        method: "GET",
        path: PRIVACY,
        respond: () => json(200, { status: "public", readableAt: ["https://photos.s3.example/backups/privacy-probe"] }),
      },
    ]);
    renderWithClient(<BucketPrivacyNotice />);
    const notice = await screen.findByRole("region", {
      name: "Anyone on the internet can download your backups and original photos. Make the bucket private.",
    });
    expect(notice).toHaveClass("bg-red-50");
    expect(screen.getByText("Details for whoever runs your website")).toBeInTheDocument();
    expect(screen.getByText("https://photos.s3.example/backups/privacy-probe")).toBeInTheDocument();
  });

  it.each(["private", "off", "no-bucket"])("shows nothing when the check found %s", async (status) => {
    mockFetch([{ method: "GET", path: PRIVACY, respond: () => json(200, { status }) }]);
    const { queryClient } = renderWithClient(<BucketPrivacyNotice />);
    // The answer has arrived and been rendered: only then does "nothing" mean anything.
    await vi.waitFor(() => expect(queryClient.getQueryState(BUCKET_PRIVACY_KEY)?.status).toBe("success"));
    expect(screen.queryByRole("region")).toBeNull();
    expect(screen.queryByText(/Anyone on the internet/)).toBeNull();
  });
});
