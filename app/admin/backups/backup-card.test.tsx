import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BackupStatus } from "~/backups/backup-status";
import { BackupCard } from "./backup-card";
import { json, mockFetch, renderWithClient } from "../test-helpers";

afterEach(() => {
  vi.unstubAllGlobals();
});

const base: BackupStatus = {
  lastBackup: null,
  problem: null,
  lastDownloadAt: null,
  downloadReminder: false,
  schedule: { intervalHours: 24, keep: 7, nextDueAt: "2026-05-02T10:00:00.000Z" },
  running: false,
  offsite: {
    configured: false,
    encrypted: false,
    state: "off",
    intervalMinutes: 60,
    nextCopyAt: null,
    lastCopy: null,
    failing: null,
  },
  foreignBackups: [],
};

function renderCard(status: BackupStatus) {
  mockFetch([{ method: "GET", path: "/api/admin/backups/status", respond: () => json(200, status) }]);
  renderWithClient(<BackupCard onBack={vi.fn()} />);
  return screen.getByRole("region", { name: "Backups" });
}

describe("the Backups view", () => {
  it("shows the last backup with its date and size, the schedule and the last download", async () => {
    const card = renderCard({
      ...base,
      lastBackup: { at: "2026-05-01T03:04:00.000Z", bytes: 12_900_000, fileName: "cornerstone-20260501-030400.tar.gz" },
      lastDownloadAt: "2026-04-20T21:00:00.000Z",
    });
    expect(await within(card).findByText(/^Last backup:/)).toHaveTextContent(
      /^Last backup: May 1st, 2026 at \d{1,2}:04 [AP]M \(12 MB\)$/,
    );
    expect(card).not.toHaveTextContent("KB");
    expect(within(card).getByText(/^Last downloaded:/)).toHaveTextContent(/April 2\d(st|nd|th), 2026/);
    expect(
      within(card).getByText("Automatic backups every 24 hours; the newest 7 are kept on the server."),
    ).toBeInTheDocument();
    expect(within(card).queryByRole("alert")).toBeNull();
    const link = within(card).getByRole("link", { name: "Download backup" });
    expect(link).toHaveAttribute("href", "/api/admin/backups/download");
    expect(link).toHaveAttribute("download");
  });

  it("on a new site: no backup yet, not downloaded yet; automatic backups may be off", async () => {
    const card = renderCard({ ...base, schedule: { intervalHours: 0, keep: 7, nextDueAt: null } });
    expect(await within(card).findByText("No backup yet.")).toBeInTheDocument();
    expect(within(card).queryByText("A backup is being made right now.")).toBeNull();
    expect(within(card).getByText("Not downloaded yet.")).toBeInTheDocument();
    expect(within(card).getByText("Automatic backups are off.")).toBeInTheDocument();
  });

  it("says when a backup is running", async () => {
    const card = renderCard({ ...base, running: true });
    expect(await within(card).findByText("A backup is being made right now.")).toBeInTheDocument();
  });

  it("shows a failed backup as an alert in plain words, with the reason under the details", async () => {
    const card = renderCard({
      ...base,
      problem: {
        at: "2026-05-01T03:04:00.000Z",
        kind: "failed",
        message: "EACCES: permission denied, open '/var/lib/cornerstone/backups/x.tar.gz'",
      },
    });
    expect(await within(card).findByRole("alert")).toHaveTextContent(
      /^Your site could not make its last backup\. Ask whoever runs your website to look at it\.$/,
    );
    const details = within(card).getByText("Details for whoever runs your website").closest("details")!;
    expect(details).not.toHaveAttribute("open");
    expect(details).toHaveTextContent(/The last backup failed \(May 1st, 2026 at .+\): EACCES: permission denied/);
  });

  it("shows a skipped backup with its reason under the details", async () => {
    const card = renderCard({
      ...base,
      problem: {
        at: "2026-05-01T03:04:00.000Z",
        kind: "skipped",
        message: "Not enough free disk space for a backup: …",
      },
    });
    expect(await within(card).findByRole("alert")).toHaveTextContent(
      "Your site skipped its last backup. Ask whoever runs your website to look at it.",
    );
    expect(within(card).getByTestId("backup-problem")).toHaveTextContent(
      /A backup was skipped \(May 1st, 2026 at .+\): Not enough free disk space/,
    );
  });

  it("lists the backups this site did not make, and where each is", async () => {
    const card = renderCard({
      ...base,
      foreignBackups: [
        { location: "server", name: "cornerstone-20260101-000000.tar.gz" },
        { location: "bucket", name: "cornerstone-99991231-235959.tar.gz" },
      ],
    });
    const list = await within(card).findByTestId("foreign-backups");
    expect(within(list).getByRole("heading", { name: "Backups this site did not make" })).toBeInTheDocument();
    expect(
      within(list)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual([
      "cornerstone-20260101-000000.tar.gz (on the server)",
      "cornerstone-99991231-235959.tar.gz (in the bucket)",
    ]);
  });

  it("shows no such list when every file under backups/ is the site's own", async () => {
    const card = renderCard(base);
    expect(await within(card).findByText("No backup yet.")).toBeInTheDocument();
    expect(within(card).queryByText("Backups this site did not make")).toBeNull();
  });

  it("says what the downloaded file is for, naming the passphrase only when backups are encrypted", async () => {
    const card = renderCard(base);
    expect(await within(card).findByTestId("download-purpose")).toHaveTextContent(
      /^Keep it somewhere safe\. Whoever runs your website can restore the site from it\.$/,
    );
    vi.unstubAllGlobals();
    document.body.innerHTML = "";
    const encrypted = renderCard({ ...base, offsite: { ...base.offsite, encrypted: true } });
    await within(encrypted).findByText("No backup yet.");
    expect(within(encrypted).getByTestId("download-purpose")).toHaveTextContent(
      /^Keep it somewhere safe\. Whoever runs your website can restore the site from it, with the backup passphrase\.$/,
    );
  });

  it("counts a download at once: the card says when, not 'Not downloaded yet'", async () => {
    const card = renderCard(base);
    expect(await within(card).findByText("Not downloaded yet.")).toBeInTheDocument();
    const link = within(card).getByRole("link", { name: "Download backup" });
    // jsdom cannot download; keep it from trying to navigate.
    link.addEventListener("click", (event) => event.preventDefault());
    await userEvent.click(link);
    expect(within(card).queryByText("Not downloaded yet.")).toBeNull();
    expect(within(card).getByText(/^Last downloaded:/)).toHaveTextContent(new Date().getFullYear().toString());
    expect(within(card).getByRole("status")).toHaveTextContent("Your backup is downloading.");
  });

  it("reminds gently after 30 days without a download; the reminder goes once a download starts", async () => {
    const card = renderCard({ ...base, lastDownloadAt: "2026-03-01T00:00:00.000Z", downloadReminder: true });
    expect(await within(card).findByTestId("backup-reminder")).toHaveTextContent(
      "It has been more than 30 days since you last downloaded a backup. Download one now and keep it somewhere safe, off this server: on your computer or in cloud storage.",
    );
    const link = within(card).getByRole("link", { name: "Download backup" });
    // jsdom cannot download; keep it from trying to navigate.
    link.addEventListener("click", (event) => event.preventDefault());
    await userEvent.click(link);
    expect(within(card).queryByTestId("backup-reminder")).toBeNull();
    expect(within(card).getByRole("status")).toHaveTextContent("Your backup is downloading.");
  });

  it("says so when the status cannot be loaded, still offers the download, and loads it on Retry", async () => {
    let fail = true;
    mockFetch([
      {
        method: "GET",
        path: "/api/admin/backups/status",
        respond: () => (fail ? json(500, { message: "boom" }) : json(200, base)),
      },
    ]);
    renderWithClient(<BackupCard onBack={vi.fn()} />);
    const card = screen.getByRole("region", { name: "Backups" });
    const alert = await within(card).findByRole("alert");
    expect(alert).toHaveTextContent("Unable to load the backup status.");
    expect(within(card).getByRole("link", { name: "Download backup" })).toBeInTheDocument();
    fail = false;
    await userEvent.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(await within(card).findByText("No backup yet.")).toBeInTheDocument();
    expect(within(card).queryByRole("alert")).toBeNull();
  });
});
