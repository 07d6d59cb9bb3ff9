import { describe, expect, it } from "vitest";
import { defaultContentMap } from "./sections";
import { MAX_ADDRESS_CHARS, businessJsonLd, postalAddress, splitPostcode, type SiteSeo } from "./seo";

describe("businessJsonLd's areaServed", () => {
  const seo = (areas: string): SiteSeo => ({
    siteUrl: "https://stone.example.nz",
    contact: {
      ...defaultContentMap(["contact.name", "contact.phone", "contact.email", "contact.address"]),
      "contact.areas": areas,
    },
    shareImage: null,
  });

  it("lists the region, then each town of the text as a City, one a line", () => {
    expect(businessJsonLd(seo("Waitara\n\n  Ōakura \r\nStratford")).areaServed).toEqual([
      { "@type": "AdministrativeArea", name: "Taranaki" },
      { "@type": "City", name: "Waitara" },
      { "@type": "City", name: "Ōakura" },
      { "@type": "City", name: "Stratford" },
    ]);
  });

  it("reads at most 2,000 characters of towns, however long the text", () => {
    expect(businessJsonLd(seo("Town\n".repeat(100_000))).areaServed).toHaveLength(1 + 400);
  });
});

describe("postalAddress", () => {
  it("splits the last line into locality and postcode", () => {
    expect(postalAddress("1 Devon Street\nNew Plymouth 4310")).toMatchObject({
      streetAddress: "1 Devon Street",
      addressLocality: "New Plymouth",
      postalCode: "4310",
    });
    expect(postalAddress("Unit 2, 5 Gill Street\nLevel 1\nNew Plymouth, 4310")).toMatchObject({
      streetAddress: "Unit 2, 5 Gill Street, Level 1",
      addressLocality: "New Plymouth",
      postalCode: "4310",
    });
    expect(postalAddress("New Plymouth")).toMatchObject({ addressLocality: "New Plymouth", postalCode: undefined });
  });

  it.each([
    ["New Plymouth 4310", { locality: "New Plymouth", postalCode: "4310" }],
    ["New Plymouth ,  \t4310", { locality: "New Plymouth", postalCode: "4310" }],
    [", 4310", { locality: "", postalCode: "4310" }],
    ["New Plymouth4310", { locality: "New Plymouth4310" }],
    // Five digits: the last four are not a postcode on their own.
    ["Box 14310", { locality: "Box 14310" }],
    ["4310", { locality: "4310" }],
    ["New Plymouth 43a0", { locality: "New Plymouth 43a0" }],
  ])("splitPostcode(%j) → %j", (line, expected) => {
    expect(splitPostcode(line)).toEqual(expected);
  });

  it("gives the same answers as the old pattern on its worst cases, without looking past the cap", () => {
    // Long runs of separators made /^(.*?)[,\s]+(\d{4})$/ backtrack quadratically (0.5 s at 20,000 characters).
    const spaces = "a" + " ".repeat(20_000) + "x";
    const result = postalAddress(spaces);
    expect(result.postalCode).toBeUndefined();
    expect(result.addressLocality.length).toBeLessThanOrEqual(MAX_ADDRESS_CHARS);

    const endsInPostcode = `${" ".repeat(20_000)}Inglewood 4330`;
    // Beyond the cap nothing is read: the postcode at the far end is not seen, and the output stays short.
    expect(postalAddress(endsInPostcode).addressLocality.length).toBeLessThanOrEqual(MAX_ADDRESS_CHARS);

    const separators = `Stratford${", ".repeat(10_000)}4332`;
    expect(splitPostcode(separators)).toEqual({ locality: "Stratford", postalCode: "4332" });
    // The scan is linear: a line of 20,000 separators and a postcode is handled at once.
    const started = performance.now();
    for (let i = 0; i < 10; i++) splitPostcode(`x${" ".repeat(20_000)}1234`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
