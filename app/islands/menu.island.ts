// The header's phone menu on public pages (markup: app/components/layout/site-header.tsx): a
// <details> that opens and closes without JavaScript; this adds the closing behaviour the admin's
// header shares (app/components/layout/menu-behaviour.ts).
import { MENU_ATTRIBUTE, enhanceMenu } from "~/components/layout/menu-behaviour";
import { markIslandMounted } from "./mounted";

const details = document.querySelector<HTMLDetailsElement>(`details[${MENU_ATTRIBUTE}]`);
if (details) enhanceMenu(details);
markIslandMounted("menu");
