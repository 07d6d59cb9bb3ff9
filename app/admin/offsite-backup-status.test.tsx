import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { BackupStatus } from "~/backups/backup-status";
import { keptOffAt, OffsiteBackupStatus } from "./offsite-backup-status";

const configured: BackupStatus["offsite"] = { configured: true, encrypted: true, lastCopy: null, failing: null };
const todayAt = (hours: number, minutes = 0) => {
  const at = new Date();
  at.setHours(hours, minutes, 0, 0);
  return at.toISOString();
};

describe("the backup card's off-site lines", () => {
  it("says where the last copy went and when, in the owner's words", () => {
    render(<OffsiteBackupStatus offsite={{ ...configured, lastCopy: { at: todayAt(3), name: "cornerstone-x.tar.gz.age" } }} />);
    expect(screen.getByTestId("offsite-last-copy")).toHaveTextContent(/^Last copy kept off the server: today 3:00 AM$/);
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByTestId("offsite-not-encrypted")).toBeNull();
  });

  it("gives the full date for an older copy, and says when there is none yet", () => {
    expect(keptOffAt("2026-05-01T15:00:00.000Z", new Date("2026-05-09T15:00:00.000Z"))).toMatch(/^May 1st, 2026 at \d{1,2}:00 [AP]M$/);
    render(<OffsiteBackupStatus offsite={configured} />);
    expect(screen.getByText("No copy has been kept off the server yet.")).toBeInTheDocument();
  });

  it("after two failed uploads in a row: a red notice in plain words, the detail under a disclosure", () => {
    render(
      <OffsiteBackupStatus
        offsite={{ ...configured, failing: { failures: 2, lastFailedAt: "2026-05-02T15:00:00.000Z", message: "Could not copy the backup to the off-site bucket b: NoSuchBucket" } }}
      />,
    );
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent(/^Your site could not copy its backups off the server the last 2 times it tried\. Ask whoever runs your website to look at it\./);
    expect(within(alert).getByText("Details for whoever runs your website").tagName).toBe("SUMMARY");
    expect(alert).toHaveTextContent("NoSuchBucket");
  });

  it("says that the copies off the server are not encrypted without a passphrase", () => {
    render(<OffsiteBackupStatus offsite={{ ...configured, encrypted: false }} />);
    expect(screen.getByTestId("offsite-not-encrypted")).toHaveTextContent(/^The copies kept off the server are not encrypted/);
  });

  it("without an off-site bucket: backups are on this server only", () => {
    render(<OffsiteBackupStatus offsite={{ ...configured, configured: false, encrypted: false }} />);
    expect(screen.getByText(/^Backups are kept on this server only\./)).toBeInTheDocument();
    expect(screen.queryByTestId("offsite-not-encrypted")).toBeNull();
  });
});
