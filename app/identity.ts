/**
 * The business behind the site. This is the one place its identity lives:
 * another trade business changes these values (and the content) and nothing else.
 * Phone, e-mail and address here are the built-in defaults of the editable
 * contact_info content (see content/sections.ts).
 */
export const identity = {
  businessName: "Cornerstone Stonemasonry",
  companyName: "Cornerstone Stonemasonry Ltd",
  ownerName: "Mark Brennan",
  ownerFirstName: "Mark",
  phone: "027 555 0184",
  email: "mark@cornerstonestonemasonry.co.nz",
  address: "14 Breakwater Road\nMoturoa\nNew Plymouth 4310",
  city: "New Plymouth",
  region: "Taranaki",
  countryCode: "NZ",
  /** IANA zone of the business: times in e-mails and file names are written in it. */
  timeZone: "Pacific/Auckland",
  yearsExperience: "20+",
  trade: "stonemasonry and hard landscaping",
  copyrightYear: 2025,
  /** The towns the built-in texts name, the city first: the structured data's areaServed until the owner edits them. */
  townsServed: ["New Plymouth", "Waitara", "Inglewood", "Ōakura", "Stratford", "Hāwera"],
} as const;

/** The footer's five services (spec §2), and the page each links to. */
export const SERVICES = [
  { name: "Traditional Stonework", page: "/stonework" },
  { name: "Veneer Installation", page: "/stonework" },
  { name: "Retaining Walls", page: "/landscaping" },
  { name: "Deck Construction", page: "/landscaping" },
  { name: "Garden Tune-ups", page: "/landscaping" },
] as const;

/** "027 555 0184" → "tel:0275550184" (spaces stripped, as dialers expect). */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/\s+/g, "")}`;
}

/** Multi-line text → its non-empty lines. */
export function splitLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}
