// React DOM hydrates the contact form and its notification area alone, without React Router
// (app/components/contact-island.tsx). Loaded by app/islands/contact.island.ts when the form is near.
import { StrictMode, useEffect, type ReactNode } from "react";
import { hydrateRoot } from "react-dom/client";
import { ContactIsland, type ContactIslandProps } from "~/components/contact-island";
import { markIslandMounted } from "./mounted";

function Mounted({ children }: { children: ReactNode }) {
  useEffect(() => markIslandMounted("contact"), []);
  return children;
}

export function hydrateContactIsland(container: HTMLElement): void {
  const props = JSON.parse(container.dataset.props ?? "{}") as ContactIslandProps;
  hydrateRoot(
    container,
    <StrictMode>
      <Mounted>
        <ContactIsland {...props} />
      </Mounted>
    </StrictMode>,
  );
}
