import { PortfolioPage, type Portfolio } from "~/components/portfolio-page";
import { loadPortfolio } from "~/galleries/portfolio.server";
import { identity } from "~/identity";
import { pageMeta, siteSeoFrom } from "~/content/seo";
import type { Route } from "./+types/stonework";
import type { PublicPageHandle } from "~/islands/islands";

const STONEWORK = {
  title: "Professional Stonemasonry",
  intro: "stonework.intro",
  galleries: [
    {
      galleryType: "traditional",
      headingId: "traditional-title",
      title: "Traditional Stonework",
      description: "stonework.traditional.description",
    },
    {
      galleryType: "veneer",
      headingId: "veneer-title",
      title: "Modern Veneer Stonework",
      description: "stonework.veneer.description",
    },
  ],
  cta: { title: "stonework.cta.title", text: "stonework.cta.text" },
} as const satisfies Portfolio;

export async function loader({ context }: Route.LoaderArgs) {
  return loadPortfolio(context, "stonework", STONEWORK);
}

export const handle: PublicPageHandle = { islands: [] };

export function meta({ data, matches }: Route.MetaArgs) {
  return pageMeta({
    title: `Stonemasonry in ${identity.city} & ${identity.region} | ${identity.businessName}`,
    description: data?.content["stonework.intro"] ?? "",
    path: "/stonework",
    seo: siteSeoFrom(matches),
  });
}

export default function Stonework({ loaderData }: Route.ComponentProps) {
  return <PortfolioPage portfolio={STONEWORK} {...loaderData} />;
}
