import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { offsiteSummary, timeAgo, type OffsiteStatus } from "~/backups/backup-status";
import { OffsiteBackupStatus } from "./offsite-backup-status";

const NOW = new Date("2026-05-02T15:00:00.000Z");
const minutesBefore = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const copying: OffsiteStatus = {
  configured: true,
  encrypted: true,
  state: "ok",
  intervalMinutes: 60,
  nextCopyAt: minutesBefore(-48),
  lastCopy: { at: minutesBefore(12), name: "4c2b9e1f0a7d3b5e", sentBytes: 4096 },
  failing: null,
};

describe("the backup card's off-site lines", () => {
  it("says how long ago the last copy left, in the owner's words", () => {
    render(<OffsiteBackupStatus offsite={copying} now={NOW} />);
    expect(screen.getByTestId("offsite-last-copy")).toHaveTextContent(/^Last copy off the server: 12 minutes ago$/);
    expect(screen.getByText("A copy leaves the server every hour, encrypted.")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(offsiteSummary(copying, NOW)).toEqual({ text: "Last copy off the server: 12 minutes ago", tone: "ok" });
  });

  it("counts minutes, hours and days", () => {
    expect(timeAgo(minutesBefore(0.5), NOW)).toBe("just now");
    expect(timeAgo(minutesBefore(1), NOW)).toBe("1 minute ago");
    expect(timeAgo(minutesBefore(59), NOW)).toBe("59 minutes ago");
    expect(timeAgo(minutesBefore(60), NOW)).toBe("1 hour ago");
    expect(timeAgo(minutesBefore(3 * 60 + 59), NOW)).toBe("3 hours ago");
    expect(timeAgo(minutesBefore(2 * 24 * 60), NOW)).toBe("2 days ago");
  });

  it("says when no copy has left yet", () => {
    render(<OffsiteBackupStatus offsite={{ ...copying, state: "waiting", lastCopy: null }} now={NOW} />);
    expect(screen.getByText("No copy has left the server yet.")).toBeInTheDocument();
  });

  it("after three hours of failed copies: a red notice in plain words, the detail under a disclosure", () => {
    const failing: OffsiteStatus = {
      ...copying,
      state: "failing",
      lastCopy: { ...copying.lastCopy!, at: minutesBefore(3 * 60 + 5) },
      failing: {
        failures: 3,
        since: minutesBefore(2 * 60 + 5),
        lastFailedAt: minutesBefore(5),
        message: "Could not write to the off-site bucket b: AccessDenied",
      },
    };
    render(<OffsiteBackupStatus offsite={failing} now={NOW} />);
    const notice = screen.getByTestId("offsite-failing");
    expect(within(notice).getByRole("alert")).toHaveTextContent(
      /^Your site could not copy its backups off the server for the last 3 hours\. Ask whoever runs your website to look at it\.$/,
    );
    expect(within(notice).getByText("Details for whoever runs your website").tagName).toBe("SUMMARY");
    expect(notice).toHaveTextContent("AccessDenied");
    expect(screen.getByTestId("offsite-last-copy")).toHaveTextContent(/^Last copy off the server: 3 hours ago$/);
    expect(offsiteSummary(failing, NOW).tone).toBe("danger");
  });

  it("without a passphrase: nothing leaves, a red notice says so, and its details say how to set one", () => {
    render(
      <OffsiteBackupStatus
        offsite={{ ...copying, encrypted: false, state: "no-passphrase", lastCopy: null, nextCopyAt: null }}
        now={NOW}
      />,
    );
    const notice = screen.getByTestId("offsite-no-passphrase");
    expect(within(notice).getByRole("alert")).toHaveTextContent(
      /^Your backups are not being copied off the server: a backup passphrase must be set first/,
    );
    expect(notice).toHaveTextContent("BACKUP_PASSPHRASE=");
    expect(notice).toHaveTextContent("/etc/cornerstone/cornerstone.env");
    expect(notice).toHaveTextContent("systemctl restart cornerstone");
  });

  it("without restic installed: nothing leaves, a red notice says so in plain words, and its details name the package", () => {
    render(<OffsiteBackupStatus offsite={{ ...copying, state: "no-restic", nextCopyAt: null }} now={NOW} />);
    const notice = screen.getByTestId("offsite-no-restic");
    expect(within(notice).getByRole("alert")).toHaveTextContent(
      /^Your backups cannot be copied off the server: the program that makes the copies is not installed on it\./,
    );
    expect(notice).toHaveTextContent("apt-get install restic");
    expect(offsiteSummary({ ...copying, state: "no-restic" }, NOW).tone).toBe("danger");
    expect(screen.queryByText(/A copy leaves the server every/)).toBeNull();
  });

  it("without an off-site store: backups are on this server only", () => {
    render(
      <OffsiteBackupStatus
        offsite={{ ...copying, configured: false, encrypted: false, state: "off", lastCopy: null }}
        now={NOW}
      />,
    );
    expect(screen.getByText(/^Backups are kept on this server only\./)).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
