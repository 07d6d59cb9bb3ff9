import { screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SubmissionsView } from "./submissions-view";
import { deferred, json, mockFetch, renderWithClient } from "./test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

describe("SubmissionsView", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("says it is loading, then lists each submission", async () => {
    const list = deferred<Response>();
    mockFetch([{ method: "GET", path: "/api/admin/contact-submissions", respond: () => list.promise }]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    expect(screen.getByRole("heading", { level: 1, name: "Contact Form Submissions" })).toBeInTheDocument();
    expect(screen.getByText("Loading submissions...")).toBeInTheDocument();
    // Local times, so the expected text holds in any time zone.
    const newer = new Date(2024, 0, 1, 15, 0).toISOString();
    const older = new Date(2023, 5, 2, 9, 5).toISOString();
    list.resolve(
      json(200, [
        { id: "2", name: "Aroha Smith", email: "aroha@example.co.nz", phone: "027 123 4567", message: "Line one\nLine two", submittedAt: newer },
        { id: "1", name: "Tom", email: "tom@example.nz", phone: null, message: "No phone here.", submittedAt: older },
      ]),
    );
    const items = await screen.findAllByRole("listitem");
    expect(items).toHaveLength(2);
    const [first, second] = items as [HTMLElement, HTMLElement];
    expect(first).toHaveTextContent("January 1st, 2024 at 3:00 PM");
    expect(first.querySelector("time")).toHaveAttribute("dateTime", newer);
    expect(first).toHaveTextContent("Aroha Smith");
    expect(within(first).getByRole("link", { name: "aroha@example.co.nz" })).toHaveAttribute("href", "mailto:aroha@example.co.nz");
    expect(within(first).getByRole("link", { name: "027 123 4567" })).toHaveAttribute("href", "tel:0271234567");
    const message = within(first).getByText(/Line one/);
    expect(message.textContent).toBe("Line one\nLine two");
    expect(message.className).toContain("whitespace-pre-line");
    expect(within(second).queryByText("Phone")).toBeNull();
    expect(within(second).queryByRole("link", { name: /^0/ })).toBeNull();
    expect(second).toHaveTextContent("June 2nd, 2023 at 9:05 AM");
    expect(second.querySelector("time")).toHaveAttribute("dateTime", older);
  });

  it("says when there are none", async () => {
    mockFetch([{ method: "GET", path: "/api/admin/contact-submissions", respond: () => json(200, []) }]);
    renderWithClient(<SubmissionsView onBack={vi.fn()} />);
    expect(await screen.findByText("No contact submissions yet")).toBeInTheDocument();
  });
});
