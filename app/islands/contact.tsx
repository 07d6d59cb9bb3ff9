// The contact page's React island: React DOM hydrates the form and its notification area alone,
// without React Router (app/components/contact-island.tsx).
import { StrictMode, useEffect, type ReactNode } from "react";
import { hydrateRoot } from "react-dom/client";
import { CONTACT_ISLAND_ID, ContactIsland, type ContactIslandProps } from "~/components/contact-island";
import { markIslandMounted } from "./mounted";

function Mounted({ children }: { children: ReactNode }) {
  useEffect(() => markIslandMounted("contact"), []);
  return children;
}

const container = document.getElementById(CONTACT_ISLAND_ID);
if (container) {
  const props = JSON.parse(container.dataset.props ?? "{}") as ContactIslandProps;
  hydrateRoot(
    container,
    <StrictMode>
      <Mounted>
        <ContactIsland {...props} />
      </Mounted>
    </StrictMode>,
  );
} else {
  markIslandMounted("contact");
}
