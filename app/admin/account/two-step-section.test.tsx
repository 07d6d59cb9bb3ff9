import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SignInMethods } from "~/auth/sign-in-methods";
import { SIGN_IN_METHODS_KEY } from "./passkey-client";
import { json, mockFetch, renderWithClient } from "../test-helpers";
import { TwoStepRestoreNotice } from "./two-step-section";

const methods = (status: SignInMethods["twoStep"]["status"]): SignInMethods => ({
  passkeys: { available: true, unavailableReason: null, list: [], signedInWith: null },
  twoStep: { status, recoveryCodesLeft: status === "on" ? 10 : 0 },
});

describe("TwoStepRestoreNotice", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the red restore notice with the exact words while two-step is unreadable, and none otherwise", async () => {
    mockFetch([{ method: "GET", path: "/api/admin/sign-in-methods", respond: () => json(200, methods("unreadable")) }]);
    const { unmount } = renderWithClient(<TwoStepRestoreNotice />);
    const notice = await screen.findByRole("region", { name: "Two-step verification is off" });
    expect(notice).toHaveClass("bg-red-50");
    expect(screen.getByRole("alert")).toHaveTextContent(
      /^Two-step verification was turned off when this site was restored\. Turn it on again\.$/,
    );
    unmount();
    vi.unstubAllGlobals();

    for (const status of ["on", "off", "enrolling"] as const) {
      mockFetch([{ method: "GET", path: "/api/admin/sign-in-methods", respond: () => json(200, methods(status)) }]);
      const { queryClient, unmount: done } = renderWithClient(<TwoStepRestoreNotice />);
      await vi.waitFor(() => expect(queryClient.getQueryState(SIGN_IN_METHODS_KEY)?.status).toBe("success"));
      expect(screen.queryByRole("region")).toBeNull();
      done();
      vi.unstubAllGlobals();
    }
  });
});
