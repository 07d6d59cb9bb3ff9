import { PortfolioPage, type Portfolio } from "~/components/portfolio-page";
import { loadPortfolio } from "~/galleries/portfolio.server";
import { identity } from "~/identity";
import { pageMeta, siteSeoFrom } from "~/content/seo";
import type { Route } from "./+types/landscaping";
import type { PublicPageHandle } from "~/islands/islands";

const LANDSCAPING = {
  title: "Hard Landscaping",
  intro: "landscaping.intro",
  galleries: [
    {
      galleryType: "landscaping",
      headingId: "projects-title",
      title: "Recent Projects",
      description: "landscaping.gallery.description",
    },
  ],
  cta: { title: "landscaping.cta.title", text: "landscaping.cta.text", showMessageButton: true },
} as const satisfies Portfolio;

export async function loader({ context }: Route.LoaderArgs) {
  return loadPortfolio(context, "landscaping", LANDSCAPING);
}

export const handle: PublicPageHandle = { islands: [] };

export function meta({ data, matches }: Route.MetaArgs) {
  return pageMeta({
    title: `Hard Landscaping in ${identity.city} | ${identity.businessName}`,
    description: data?.content["landscaping.intro"] ?? "",
    path: "/landscaping",
    seo: siteSeoFrom(matches),
  });
}

export default function Landscaping({ loaderData }: Route.ComponentProps) {
  return <PortfolioPage portfolio={LANDSCAPING} {...loaderData} />;
}
