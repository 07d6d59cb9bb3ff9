/** The contact form island's element: rendered by contact-island.tsx, found by app/islands/contact.island.ts. */
export const CONTACT_ISLAND_ID = "contact-island";
