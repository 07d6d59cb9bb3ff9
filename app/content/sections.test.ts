import { describe, expect, it } from "vitest";
import { identity } from "~/identity";
import {
  PAGE_GROUPS,
  SECTIONS,
  editorTitleFor,
  isHttpsAddress,
  isSectionKey,
  sectionKeysInGroup,
  servingLine,
} from "./sections";

// Spec §3: the keys of each page group.
const SPEC_KEYS = {
  homepage: [
    "hero.title",
    "hero.subtitle",
    "services.title",
    "services.description",
    "about.snippet.title",
    "about.snippet.content",
  ],
  stonework: [
    "stonework.intro",
    "stonework.traditional.description",
    "stonework.veneer.description",
    "stonework.cta.title",
    "stonework.cta.text",
  ],
  landscaping: [
    "landscaping.intro",
    "landscaping.gallery.description",
    "landscaping.cta.title",
    "landscaping.cta.text",
  ],
  contact: ["about.subtitle", "about.bio"],
  footer: ["footer.description"],
  contact_info: ["contact.name", "contact.phone", "contact.email", "contact.address"],
};
// Added to the spec's texts (docs/SPEC-DEVIATIONS.md): the towns served and the review address.
const ADDED_KEYS = { contact_info: ["contact.areas", "contact.reviewLink"] } as Partial<Record<string, string[]>>;

describe("content-section registry", () => {
  it("holds exactly the sections of spec §3, by page group", () => {
    for (const group of PAGE_GROUPS)
      expect(sectionKeysInGroup(group)).toEqual([...SPEC_KEYS[group], ...(ADDED_KEYS[group] ?? [])]);
    expect(SECTIONS).toHaveLength([...Object.values(SPEC_KEYS), ...Object.values(ADDED_KEYS)].flat().length);
  });

  it("gives every section a title, description, location and non-empty default (the review address is empty until set)", () => {
    for (const section of SECTIONS) {
      expect(section.title, section.key).not.toBe("");
      expect(section.description, section.key).not.toBe("");
      expect(section.location, section.key).not.toBe("");
      if (section.key !== "contact.reviewLink") expect(section.defaultContent.trim(), section.key).not.toBe("");
    }
    expect(SECTIONS.find((s) => s.key === "contact.reviewLink")?.defaultContent).toBe("");
  });

  it("serves, by default, exactly the towns the built-in texts name, one a line, and says so only once changed", () => {
    const built = SECTIONS.filter((s) => s.key !== "contact.areas")
      .map((s) => s.defaultContent)
      .join("\n");
    const towns = SECTIONS.find((s) => s.key === "contact.areas")!.defaultContent.split("\n");
    expect(towns).toEqual(["New Plymouth", "Waitara", "Inglewood", "Ōakura", "Stratford", "Hāwera"]);
    for (const town of towns) expect(built).toContain(town);
    expect(servingLine(towns.join("\n"))).toBeNull();
    expect(servingLine("New Plymouth\n\n Waitara \nInglewood")).toBe("Serving New Plymouth, Waitara, Inglewood");
  });

  it("takes only https:// addresses with a host where a text must be one", () => {
    for (const good of ["https://g.page/r/abc/review", "HTTPS://example.nz"])
      expect(isHttpsAddress(good), good).toBe(true);
    for (const bad of ["http://example.nz", "javascript:alert(1)", "https://", "example.nz", " https://x.nz"])
      expect(isHttpsAddress(bad), bad).toBe(false);
  });

  it("uses the business identity for the contact defaults", () => {
    const byKey = Object.fromEntries(SECTIONS.map((s) => [s.key, s.defaultContent]));
    expect(byKey["contact.name"]).toBe(identity.ownerName);
    expect(byKey["contact.phone"]).toBe(identity.phone);
    expect(byKey["contact.email"]).toBe(identity.email);
    expect(byKey["contact.address"]).toBe(identity.address);
    expect(identity.address.split("\n").length).toBeGreaterThan(1);
    expect(identity.address).toContain("New Plymouth");
  });

  it("has four fallback paragraphs for the bio", () => {
    const bio = SECTIONS.find((s) => s.key === "about.bio")!.defaultContent;
    const paragraphs = bio.split("\n\n");
    expect(paragraphs).toHaveLength(4);
    expect(paragraphs[0]).toMatch(/20 years/);
    expect(paragraphs[1]).toMatch(/traditional and contemporary/);
    expect(paragraphs[2]).toMatch(/Taranaki/);
    expect(paragraphs[2]).toMatch(/New Plymouth/);
  });

  it("names editor pages by group", () => {
    expect(editorTitleFor("homepage")).toBe("Homepage Content");
    expect(editorTitleFor("stonework")).toBe("Stonework Page");
    expect(editorTitleFor("landscaping")).toBe("Landscaping Page");
    expect(editorTitleFor("contact")).toBe("Contact Page");
    expect(editorTitleFor("footer")).toBe("Content Editor");
    expect(editorTitleFor("contact_info")).toBe("Content Editor");
  });

  it("recognises only registered keys", () => {
    expect(isSectionKey("hero.title")).toBe(true);
    expect(isSectionKey("hero.titles")).toBe(false);
    expect(isSectionKey("__proto__")).toBe(false);
  });
});
