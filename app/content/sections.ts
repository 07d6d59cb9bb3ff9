import { identity, splitLines } from "~/identity";

/** The content-section registry: the only home of every editable text's key, description and fallback. */

/** The groups of texts, in the dashboard's order (spec §2). */
const PAGE_GROUP_NAMES = {
  homepage: { label: "Homepage", editorTitle: "Homepage Content" },
  stonework: { label: "Stonework", editorTitle: "Stonework Page" },
  landscaping: { label: "Landscaping", editorTitle: "Landscaping Page" },
  contact: { label: "About/Contact Page", editorTitle: "Contact Page" },
  footer: { label: "Footer" },
  contact_info: { label: "Contact Information" },
} as const satisfies Record<string, { label: string; editorTitle?: string }>;
export type PageGroup = keyof typeof PAGE_GROUP_NAMES;
export const PAGE_GROUPS = Object.keys(PAGE_GROUP_NAMES) as readonly PageGroup[];

/** Labels of the dashboard's "Edit Website Text" buttons. */
export const PAGE_GROUP_LABELS = Object.fromEntries(
  PAGE_GROUPS.map((group) => [group, PAGE_GROUP_NAMES[group].label]),
) as Record<PageGroup, string>;

/** The content editor's page-level title for a group. */
export function editorTitleFor(group: PageGroup): string {
  const names = PAGE_GROUP_NAMES[group];
  return "editorTitle" in names ? names.editorTitle : "Content Editor";
}

export type SectionDefinition = {
  key: string;
  group: PageGroup;
  title: string;
  description: string;
  location: string;
  defaultContent: string;
  /** Whether line breaks are meaningful (paragraphs or address lines). */
  multiline?: boolean;
  /** "https": the text, when there is one, must be an https:// address. */
  format?: "https";
};

/** An https:// address with a host (what a review link or a list's link must be). */
export function isHttpsAddress(text: string): boolean {
  if (!/^https:\/\//i.test(text)) return false;
  try {
    return new URL(text).hostname !== "";
  } catch {
    return false;
  }
}

const { businessName, companyName, ownerName, ownerFirstName, city, region, yearsExperience } = identity;

export const SECTIONS = [
  // Homepage
  {
    key: "hero.title",
    group: "homepage",
    title: "Hero Title",
    description: "The main headline visitors see first, over the rotating hero photos.",
    location: "Homepage, top banner",
    defaultContent: `Stonemasonry & Hard Landscaping in ${region}`,
  },
  {
    key: "hero.subtitle",
    group: "homepage",
    title: "Hero Subtitle",
    description: "One or two sentences under the headline saying what you do and where.",
    location: "Homepage, top banner under the headline",
    defaultContent: `Stone walls, veneer, retaining walls and decks, built properly by a ${city} craftsman with ${yearsExperience} years on the tools.`,
  },
  {
    key: "services.title",
    group: "homepage",
    title: "Services Title",
    description: "Heading of the services section with the two service cards.",
    location: "Homepage, services section heading",
    defaultContent: "What We Build",
  },
  {
    key: "services.description",
    group: "homepage",
    title: "Services Description",
    description: "Short introduction above the Stonework and Hard Landscaping cards.",
    location: "Homepage, services section under the heading",
    defaultContent:
      "From heritage stone walls to modern veneer feature walls, retaining walls, decks and garden tune-ups: every job is quoted, built and finished by the owner, not a subcontractor.",
  },
  {
    key: "about.snippet.title",
    group: "homepage",
    title: "About Snippet Title",
    description: "Heading of the short About section near the bottom of the homepage.",
    location: "Homepage, about section heading",
    defaultContent: "Local, Experienced, Hands-On",
  },
  {
    key: "about.snippet.content",
    group: "homepage",
    title: "About Snippet Text",
    description: "A short paragraph about you, with a button to the full About page.",
    location: "Homepage, about section text",
    defaultContent: `${ownerFirstName} has worked with stone for more than 20 years, from repointing old basalt walls to building new schist and veneer features. Based in ${city}, he works right across ${region} and looks after every job himself, from the first site visit to the final clean-up.`,
    multiline: true,
  },

  // Stonework page
  {
    key: "stonework.intro",
    group: "stonework",
    title: "Stonework Introduction",
    description: "The opening paragraph under the 'Professional Stonemasonry' title.",
    location: "Stonework page, under the title",
    defaultContent: `Solid stone, laid by hand. Whether it is a dry-stacked garden wall, a mortared basalt entrance or a schist veneer fireplace, ${businessName} builds stonework that suits your home and stands up to ${region} weather.`,
    multiline: true,
  },
  {
    key: "stonework.traditional.description",
    group: "stonework",
    title: "Traditional Stonework Description",
    description: "Text above the Traditional Stonework gallery.",
    location: "Stonework page, Traditional Stonework section",
    defaultContent:
      "Full-bed stone walls, pillars, steps and repairs using local andesite and basalt as well as imported schist and limestone. Heritage walls are repaired with lime mortars that match the original work.",
    multiline: true,
  },
  {
    key: "stonework.veneer.description",
    group: "stonework",
    title: "Veneer Stonework Description",
    description: "Text above the Modern Veneer Stonework gallery.",
    location: "Stonework page, Modern Veneer Stonework section",
    defaultContent:
      "Natural stone veneer gives the look of solid stone at a fraction of the weight. Ideal for feature walls, fireplaces, house foundations and letterbox pillars, inside or out.",
    multiline: true,
  },
  {
    key: "stonework.cta.title",
    group: "stonework",
    title: "Stonework Call-to-Action Title",
    description: "Heading of the call-to-action card at the bottom of the Stonework page.",
    location: "Stonework page, bottom card heading",
    defaultContent: "Planning a stone project?",
  },
  {
    key: "stonework.cta.text",
    group: "stonework",
    title: "Stonework Call-to-Action Text",
    description: "Text of the call-to-action card, above the call button.",
    location: "Stonework page, bottom card text",
    defaultContent: `Give ${ownerFirstName} a call for a free, no-obligation quote. He will come and look at the site, talk through stone options and give you a clear price.`,
    multiline: true,
  },

  // Hard landscaping page
  {
    key: "landscaping.intro",
    group: "landscaping",
    title: "Landscaping Introduction",
    description: "The opening paragraph under the Hard Landscaping title.",
    location: "Hard Landscaping page, under the title",
    defaultContent:
      "Retaining walls, decks, paths and garden structures that make a section easier to live with. Small non-consent builds and garden tune-ups too, all done to the same standard as the stonework.",
    multiline: true,
  },
  {
    key: "landscaping.gallery.description",
    group: "landscaping",
    title: "Landscaping Gallery Description",
    description: "Text above the Hard Landscaping projects gallery.",
    location: "Hard Landscaping page, projects section",
    defaultContent:
      "A selection of recent retaining walls, timber and composite decks, steps, raised beds and garden tune-ups from around the region.",
    multiline: true,
  },
  {
    key: "landscaping.cta.title",
    group: "landscaping",
    title: "Landscaping Call-to-Action Title",
    description: "Heading of the call-to-action card at the bottom of the Hard Landscaping page.",
    location: "Hard Landscaping page, bottom card heading",
    defaultContent: "Ready to sort out the section?",
  },
  {
    key: "landscaping.cta.text",
    group: "landscaping",
    title: "Landscaping Call-to-Action Text",
    description: "Text of the call-to-action card, above the call and message buttons.",
    location: "Hard Landscaping page, bottom card text",
    defaultContent:
      "Call for a free quote, or send a message with a few details and photos of the area and we will get back to you within a couple of working days.",
    multiline: true,
  },

  // About / contact page
  {
    key: "about.subtitle",
    group: "contact",
    title: "About Subtitle",
    description: "The line under the 'About' title.",
    location: "About page, under the title",
    defaultContent: `Stonemason, craftsman and owner of ${companyName}`,
  },
  {
    key: "about.bio",
    group: "contact",
    title: "About Biography",
    description: "Your story. Leave an empty line between paragraphs.",
    location: "About page, Experience & Expertise section",
    defaultContent: [
      `${ownerName} has been building with stone for more than 20 years. He learned the trade on heritage walls and has since built everything from farm entrances to modern feature walls.`,
      "He works in both traditional and contemporary techniques: dry-stacked and mortared walls, lime repointing of heritage stonework, and lightweight natural stone veneer for new homes.",
      `Based in ${city}, ${companyName} serves the whole ${region} region, from Waitara and Inglewood to Ōakura, Stratford and Hāwera.`,
      `You deal with ${ownerFirstName} from the first phone call to the finished job. Quotes are free, clear and honest, and the work is done on time and cleaned up after.`,
    ].join("\n\n"),
    multiline: true,
  },

  // Footer
  {
    key: "footer.description",
    group: "footer",
    title: "Footer Description",
    description: "The short company description at the bottom of every page.",
    location: "Footer, every page",
    defaultContent: `${companyName}: traditional stonework, stone veneer and hard landscaping in ${city} and across ${region}, with ${yearsExperience} years of experience.`,
    multiline: true,
  },

  // Contact information
  {
    key: "contact.name",
    group: "contact_info",
    title: "Contact Name",
    description: "The name people ask for. Also used in the About page title.",
    location: "About page, Get In Touch card",
    defaultContent: ownerName,
  },
  {
    key: "contact.phone",
    group: "contact_info",
    title: "Phone Number",
    description: "Shown everywhere as a tap-to-call link. Write it as people read it, e.g. 027 555 0184.",
    location: "Get In Touch card, footer and call buttons",
    defaultContent: identity.phone,
  },
  {
    key: "contact.email",
    group: "contact_info",
    title: "Email Address",
    description: "Shown as a link that opens a new e-mail.",
    location: "Get In Touch card and footer",
    defaultContent: identity.email,
  },
  {
    key: "contact.address",
    group: "contact_info",
    title: "Address",
    description: "Postal address, one part per line.",
    location: "Get In Touch card and footer",
    defaultContent: identity.address,
    multiline: true,
  },
  {
    key: "contact.areas",
    group: "contact_info",
    title: "Towns you work in",
    description:
      'One town per line. Search engines read them; once you change them, the Get In Touch card and the footer say "Serving …".',
    location: "Search results; Get In Touch card and footer once changed",
    defaultContent: identity.townsServed.join("\n"),
    multiline: true,
  },
  {
    key: "contact.reviewLink",
    group: "contact_info",
    title: "Where customers leave a review",
    description:
      'The https:// address where a customer writes a review, e.g. your Google "write a review" link. Once it is set, each enquiry in the inbox has "Ask for a review".',
    location: "Inbox, Ask for a review",
    defaultContent: "",
    format: "https",
  },
] as const satisfies readonly SectionDefinition[];

export type SectionKey = (typeof SECTIONS)[number]["key"];
export type ContentMap<K extends SectionKey = SectionKey> = Record<K, string>;

const sectionsByKey = new Map<string, SectionDefinition>(SECTIONS.map((s) => [s.key, s]));

export function isSectionKey(key: string): key is SectionKey {
  return sectionsByKey.has(key);
}

export function getSection(key: SectionKey): SectionDefinition {
  return sectionsByKey.get(key)!;
}

export function defaultContentFor(key: SectionKey): string {
  return getSection(key).defaultContent;
}

export function sectionsInGroup(group: PageGroup): SectionDefinition[] {
  return SECTIONS.filter((s) => s.group === group);
}

export function sectionKeysInGroup<G extends PageGroup>(
  group: G,
): Extract<(typeof SECTIONS)[number], { group: G }>["key"][] {
  return SECTIONS.filter((s) => s.group === group).map((s) => s.key) as never;
}

/** Every default, keyed; the shape pages get when nothing is stored. */
export function defaultContentMap<K extends SectionKey>(keys: readonly K[]): ContentMap<K> {
  return Object.fromEntries(keys.map((key) => [key, defaultContentFor(key)])) as ContentMap<K>;
}

/** "Serving New Plymouth, Waitara, …" once the owner has changed the towns; null while they are the built-in ones. */
export function servingLine(areas: string): string | null {
  const towns = splitLines(areas);
  return areas === defaultContentFor("contact.areas") || towns.length === 0 ? null : `Serving ${towns.join(", ")}`;
}

/** Keys the shared layout (header, footer) needs on every page. */
export const LAYOUT_KEYS = [...sectionKeysInGroup("footer"), ...sectionKeysInGroup("contact_info")] as const;
