import { describe, expect, it } from "vitest";
import { NOTIFICATIONS_OFF_STATE } from "~/notifications/notification-state";
import type { InboxItem } from "./inbox";
import { CSV_COLUMNS, csvRecord, csvRow } from "./submissions-csv.server";

/** The export gains a Photos column with the count, at the end. */

const item = (photos: InboxItem["photos"]): InboxItem => ({
  id: "e1",
  name: "Aroha",
  email: "aroha@example.nz",
  phone: null,
  message: "A garden wall, please.",
  submittedAt: "2026-02-28T20:00:00.000Z",
  cursor: "c",
  readAt: null,
  reviewAskedAt: null,
  notification: NOTIFICATIONS_OFF_STATE,
  photos,
});

describe("the CSV export's Photos column", () => {
  it("comes last in the header", () => {
    expect(csvRow(CSV_COLUMNS)).toBe("Received,Name,Email,Phone,Message,Read,Notification,Photos\r\n");
  });

  it("holds how many photos came with the enquiry, 0 when none", () => {
    const three = [
      { n: 1, width: 1600, height: 1200 },
      { n: 2, width: 1200, height: 1600 },
      { n: 3, width: 1600, height: 900 },
    ];
    expect(csvRecord(item(three))).toBe(
      '2026-03-01 09:00,Aroha,aroha@example.nz,,"A garden wall, please.",No,Off,3\r\n',
    );
    expect(csvRecord(item([]))).toBe('2026-03-01 09:00,Aroha,aroha@example.nz,,"A garden wall, please.",No,Off,0\r\n');
  });
});
