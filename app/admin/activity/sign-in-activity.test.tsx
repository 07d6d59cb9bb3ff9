import { screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SignInReport } from "~/auth/security-summary";
import { formatSubmittedAt } from "~/lib/format-date";
import { describeFailures, SignInActivity } from "./sign-in-activity";
import { json, mockFetch, renderWithClient } from "../test-helpers";

afterEach(() => vi.unstubAllGlobals());

const report = (values: Partial<SignInReport>): SignInReport => ({
  failedAttempts: 0,
  addresses: 0,
  moreAddresses: false,
  firstFailedAt: null,
  lastFailedAt: null,
  ...values,
});

function serve(value: SignInReport) {
  mockFetch([
    {
      method: "GET",
      path: "/api/admin/security/summary",
      respond: () => json(200, { failedSignInsBeforeThisSession: value }),
    },
  ]);
}

describe("SignInActivity", () => {
  it("shows how many sign-ins failed since the last one, from how many addresses, and when", async () => {
    serve(
      report({
        failedAttempts: 37,
        addresses: 12,
        firstFailedAt: "2026-01-03T10:04:00.000Z",
        lastFailedAt: "2026-01-04T22:10:00.000Z",
      }),
    );
    renderWithClient(<SignInActivity />);
    const notice = await screen.findByRole("region", { name: "Failed sign-in attempts" });
    expect(notice).toHaveTextContent("Since your last sign-in: 37 failed sign-in attempts from 12 different addresses");
    expect(notice).toHaveTextContent(
      `between ${formatSubmittedAt("2026-01-03T10:04:00.000Z")} and ${formatSubmittedAt("2026-01-04T22:10:00.000Z")}`,
    );
  });

  it("gives one time when the attempts fell in the same minute", async () => {
    serve(
      report({
        failedAttempts: 2,
        addresses: 1,
        firstFailedAt: "2026-01-03T10:04:10.000Z",
        lastFailedAt: "2026-01-03T10:04:50.000Z",
      }),
    );
    renderWithClient(<SignInActivity />);
    const notice = await screen.findByRole("region", { name: "Failed sign-in attempts" });
    expect(notice).toHaveTextContent(
      `2 failed sign-in attempts from 1 address, on ${formatSubmittedAt("2026-01-03T10:04:10.000Z")}.`,
    );
  });

  it("shows nothing when there were none (the dashboard's Activity row says so)", async () => {
    serve(report({}));
    const { queryClient } = renderWithClient(<SignInActivity />);
    await waitFor(() => expect(queryClient.getQueryData(["/api/admin/security/summary"])).toBeDefined());
    expect(document.body).toHaveTextContent(/^$/);
  });

  it("words one attempt, one address and a capped count plainly", () => {
    expect(describeFailures(report({ failedAttempts: 1, addresses: 1 }))).toBe(
      "1 failed sign-in attempt from 1 address",
    );
    expect(describeFailures(report({ failedAttempts: 5000, addresses: 1000, moreAddresses: true }))).toBe(
      "5,000 failed sign-in attempts from more than 1,000 different addresses",
    );
  });
});
