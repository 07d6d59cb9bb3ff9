import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { OwnerNotice } from "./owner-notice";

describe("OwnerNotice", () => {
  it("shows the plain sentence, and keeps the technical detail folded under 'Details for whoever runs your website'", async () => {
    render(
      <OwnerNotice tone="danger" title="Bucket is public" details={<p>The bucket answers anonymous GET requests.</p>}>
        Anyone on the internet can download your backups and original photos. Make the bucket private.
      </OwnerNotice>,
    );
    const notice = screen.getByRole("region", { name: "Bucket is public" });
    expect(within(notice).getByRole("alert")).toHaveTextContent(
      /^Anyone on the internet can download your backups and original photos\. Make the bucket private\.$/,
    );
    const summary = within(notice).getByText("Details for whoever runs your website");
    expect(summary.tagName).toBe("SUMMARY");
    const details = summary.closest("details")!;
    expect(details).not.toHaveAttribute("open");
    expect(within(notice).getByRole("alert")).not.toHaveTextContent("anonymous GET");

    await userEvent.click(summary);
    expect(details).toHaveAttribute("open");
    expect(details).toHaveTextContent("The bucket answers anonymous GET requests.");
  });

  it("is not an alert when it only warns, and has no disclosure without details", () => {
    render(
      <OwnerNotice tone="warning" title="Heads up">
        Something to know.
      </OwnerNotice>,
    );
    const notice = screen.getByRole("region", { name: "Heads up" });
    expect(notice).toHaveTextContent("Something to know.");
    expect(within(notice).queryByRole("alert")).toBeNull();
    expect(within(notice).queryByText("Details for whoever runs your website")).toBeNull();
  });
});
