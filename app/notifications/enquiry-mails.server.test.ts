import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { digestMail, enquiryMail } from "./enquiry-mails.server";

/** What the enquiry e-mail and the digest say about the visitor's photos. */

const ctx = {
  from: { name: null, address: "site@example.nz" },
  to: "owner@example.nz",
  siteUrl: "https://stone.example.nz",
};
const enquiry = {
  id: "e1",
  name: "Aroha",
  email: "aroha@example.nz",
  phone: null,
  message: "A wall.",
  submittedAt: "2025-07-02T23:30:00.000Z",
};
const attachment = (n: number) => ({
  filename: `enquiry-photo-${n}.jpg`,
  contentType: "image/jpeg",
  content: Readable.from([]),
});

describe("the enquiry e-mail's photos", () => {
  it("says nothing of photos when there are none, and attaches nothing", () => {
    const mail = enquiryMail(ctx, enquiry, "<x@y>");
    expect(mail.text).not.toMatch(/photo/i);
    expect(mail.attachments).toEqual([]);
  });

  it("says how many are attached, and carries them", () => {
    const mail = enquiryMail(ctx, enquiry, "<x@y>", { attachments: [attachment(1), attachment(2)], unreadable: 0 });
    expect(mail.text).toContain("A wall.\n\n2 photos are attached.\n\nPress Reply");
    expect(mail.html).toContain("2 photos are attached.");
    expect(mail.attachments!.map((file) => file.filename)).toEqual(["enquiry-photo-1.jpg", "enquiry-photo-2.jpg"]);
    expect(enquiryMail(ctx, enquiry, "<x@y>", { attachments: [attachment(1)], unreadable: 0 }).text).toContain(
      "1 photo is attached.",
    );
  });

  it("says which could not be attached when a photo could not be read", () => {
    const some = enquiryMail(ctx, enquiry, "<x@y>", { attachments: [attachment(2)], unreadable: 1 });
    expect(some.text).toContain(
      "1 photo is attached.\nCould not attach 1 photo (it could not be read; it may have been deleted).\n",
    );
    const none = enquiryMail(ctx, enquiry, "<x@y>", { attachments: [], unreadable: 2 });
    expect(none.text).toContain("Could not attach 2 photos (they could not be read; they may have been deleted).");
    expect(none.text).not.toContain("attached.");
  });
});

describe("the digest's photos", () => {
  it("carries none, and sends the owner to the inbox for each enquiry that has some", () => {
    const mail = digestMail(
      ctx,
      [enquiry, { ...enquiry, id: "e2", name: "Tom" }, { ...enquiry, id: "e3", name: "Ana" }],
      "2025-07-02T23:00:00.000Z",
      "<d@y>",
      new Map([
        ["e1", 3],
        ["e3", 1],
      ]),
    );
    expect(mail.attachments).toBeUndefined();
    expect(mail.text).toContain(
      "A wall.\n\n3 photos: see them in the inbox: https://stone.example.nz/admin?view=submissions\n\n--- 2 of 3 ---",
    );
    expect(mail.text).toContain("--- 3 of 3 ---");
    expect(mail.text).toContain("1 photo: see it in the inbox: https://stone.example.nz/admin?view=submissions");
    // Tom sent none: his part says nothing of photos.
    const toms = mail.text.slice(mail.text.indexOf("--- 2 of 3 ---"), mail.text.indexOf("--- 3 of 3 ---"));
    expect(toms).not.toMatch(/photo/i);
    expect(mail.html).toContain(
      '<a style="color:#9a3412" href="https://stone.example.nz/admin?view=submissions">3 photos: see them in the inbox',
    );
  });
});
