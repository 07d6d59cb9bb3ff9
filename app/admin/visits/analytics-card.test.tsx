import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AnalyticsReport } from "~/analytics/report";
import { AnalyticsCard, enquiriesFromVisitors } from "./analytics-card";
import { json, mockFetch, renderWithClient } from "../test-helpers";

function report(overrides: Partial<AnalyticsReport> = {}): AnalyticsReport {
  const days = Array.from({ length: 30 }, (_, i) => {
    const day = new Date(Date.UTC(2026, 1, 13 + i)).toISOString().slice(0, 10); // 13 Feb … 14 Mar 2026
    return { day, visitors: 0, views: 0 };
  });
  days[27] = { ...days[27]!, visitors: 12, views: 30 }; // Thu, Mar 12
  days[29] = { ...days[29]!, visitors: 3, views: 5 }; // today, Sat, Mar 14
  return {
    enabled: true,
    timeZone: "Pacific/Auckland",
    today: "2026-03-14",
    days,
    totals: { visitors: 15, views: 35, enquiries: 2 },
    enquiryRate: 2 / 15,
    topPages: [
      { path: "/", label: "Home", views: 20 },
      { path: "/stonework", label: "Stonework", views: 15 },
    ],
    topReferrers: [{ host: "google.com", views: 9 }],
    enquiriesPerWeek: Array.from({ length: 8 }, (_, i) => ({
      weekStart: new Date(Date.UTC(2026, 0, 18 + 7 * i)).toISOString().slice(0, 10),
      enquiries: i === 7 ? 2 : i === 5 ? 1 : 0,
    })),
    ...overrides,
  };
}

describe("AnalyticsCard", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the 30 days' figures, top pages and referrers, and enquiries per week", async () => {
    mockFetch([{ method: "GET", path: "/api/admin/analytics", respond: () => json(200, report()) }]);
    renderWithClient(<AnalyticsCard onBack={vi.fn()} />);
    const card = screen.getByRole("region", { name: "Visits and Enquiries" });
    expect(await within(card).findByText("Visitors", { selector: "dt" })).toBeInTheDocument();
    const figure = (label: string) => within(card).getByText(label, { selector: "dt" }).nextElementSibling;
    expect(figure("Visitors")).toHaveTextContent("15");
    expect(figure("Page views")).toHaveTextContent("35");
    expect(figure("Enquiries")).toHaveTextContent("2");
    // 15 visitors are too few for enquiries per visitor to mean anything: no such figure, and no percentage.
    expect(within(card).queryByTestId("enquiries-from-visitors")).toBeNull();
    expect(card).not.toHaveTextContent("%");
    expect(
      within(within(card).getByRole("list", { name: "Top pages" }))
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["Home20", "Stonework15"]);
    expect(within(card).getByRole("list", { name: "Top referrers" })).toHaveTextContent("google.com9");
    const weeks = within(card).getByRole("table", { name: "Enquiries per week" });
    const rows = within(weeks).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(8);
    expect(rows[0]).toHaveTextContent(/^This week2$/);
    expect(rows[2]).toHaveTextContent(/^Week of Sun, Feb 22\s*1$/);
  });

  it("draws visitors per day as inline SVG with a text alternative and the figures as a table", async () => {
    mockFetch([{ method: "GET", path: "/api/admin/analytics", respond: () => json(200, report()) }]);
    renderWithClient(<AnalyticsCard onBack={vi.fn()} />);
    const chart = await screen.findByRole("img", { name: "Visitors per day, last 30 days" });
    expect(chart.tagName.toLowerCase()).toBe("svg");
    expect(chart).toHaveAccessibleDescription(
      "15 visitors in the last 30 days. Busiest day: Thu, Mar 12 with 12. Today so far: 3.",
    );
    const bars = chart.querySelectorAll("rect");
    expect(bars).toHaveLength(30);
    const heights = [...bars].map((bar) => Number(bar.getAttribute("height")));
    expect(heights[27]).toBeGreaterThan(heights[29]!);
    expect(heights[0]).toBe(0);
    expect(bars[29]!.querySelector("title")).toHaveTextContent("Sat, Mar 14: 3 visitors");

    await userEvent.click(screen.getByText("Show the numbers as a table"));
    const table = screen.getByRole("table", { name: "Visitors and page views per day" });
    const firstRow = within(table).getAllByRole("row")[1]!;
    expect(
      within(firstRow)
        .getAllByRole("cell")
        .map((cell) => cell.textContent),
    ).toEqual(["3", "5"]);
    expect(within(firstRow).getByRole("rowheader")).toHaveTextContent("Sat, Mar 14");
  });

  it("writes a count of one in the singular: '1 visitor', not '1 visitors'", async () => {
    const days = report().days.map((d) => ({ ...d, visitors: 0, views: 0 }));
    days[29] = { ...days[29]!, visitors: 1, views: 2 };
    mockFetch([
      {
        method: "GET",
        path: "/api/admin/analytics",
        respond: () => json(200, report({ days, totals: { visitors: 1, views: 2, enquiries: 0 } })),
      },
    ]);
    renderWithClient(<AnalyticsCard onBack={vi.fn()} />);
    const chart = await screen.findByRole("img", { name: "Visitors per day, last 30 days" });
    expect(chart).toHaveAccessibleDescription(
      "1 visitor in the last 30 days. Busiest day: Sat, Mar 14 with 1. Today so far: 1.",
    );
    expect(chart.querySelectorAll("rect")[29]!.querySelector("title")).toHaveTextContent("Sat, Mar 14: 1 visitor");
  });

  it("says when counting is turned off, and when the figures cannot be loaded (with Retry)", async () => {
    let fail = true;
    mockFetch([
      {
        method: "GET",
        path: "/api/admin/analytics",
        respond: () =>
          fail ? json(500, { message: "boom" }) : json(200, report({ enabled: false, enquiryRate: null })),
      },
    ]);
    renderWithClient(<AnalyticsCard onBack={vi.fn()} />);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The visit figures could not be loaded.");
    fail = false;
    await userEvent.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(
      await screen.findByText("Visit counting is turned off on this website. Enquiries are still shown."),
    ).toBeInTheDocument();
    // The setting's name is for whoever runs the website.
    expect(screen.getByText("The server's settings have ANALYTICS=off.").closest("details")).not.toHaveAttribute(
      "open",
    );
  });

  it("says how many enquiries came from how many visitors once there are 20 visitors", async () => {
    mockFetch([
      {
        method: "GET",
        path: "/api/admin/analytics",
        respond: () => json(200, report({ totals: { visitors: 160, views: 400, enquiries: 12 } })),
      },
    ]);
    renderWithClient(<AnalyticsCard onBack={vi.fn()} />);
    expect(await screen.findByTestId("enquiries-from-visitors")).toHaveTextContent(
      "12 enquiries from 160 visitors over the same 30 days.",
    );
  });

  it("words enquiries per visitor only from 20 visitors, never as a percentage", () => {
    expect(enquiriesFromVisitors({ visitors: 1, views: 3, enquiries: 6 })).toBeNull();
    expect(enquiriesFromVisitors({ visitors: 19, views: 40, enquiries: 2 })).toBeNull();
    expect(enquiriesFromVisitors({ visitors: 20, views: 40, enquiries: 1 })).toBe("1 enquiry from 20 visitors");
    expect(enquiriesFromVisitors({ visitors: 1200, views: 4000, enquiries: 12 })).toBe(
      "12 enquiries from 1,200 visitors",
    );
  });
});
