import { Mail, MapPin, Phone } from "lucide-react";
import { Link } from "react-router";
import { servingLine, type ContentMap } from "~/content/sections";
import { SERVICES, identity, splitLines, telHref } from "~/identity";

export type FooterContent = ContentMap<
  "footer.description" | "contact.phone" | "contact.email" | "contact.address" | "contact.areas"
>;

/** The shared footer (spec §2). `forTouch` (admin): every link at least 44 px tall. */
export function SiteFooter({ content, forTouch = false }: { content: FooterContent; forTouch?: boolean }) {
  const serving = servingLine(content["contact.areas"]);
  const link = forTouch ? "inline-flex min-h-11 items-center" : "inline-block py-1";
  // Level with the link's first line.
  const icon = `${forTouch ? "mt-3.5" : "mt-1.5"} h-4 w-4 shrink-0`;
  return (
    <footer className="bg-stone-900 text-stone-300">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-3 lg:px-8">
        <div>
          <p className="font-display text-lg font-bold text-white">{identity.businessName}</p>
          <p className="mt-3 text-sm leading-6 whitespace-pre-line">{content["footer.description"]}</p>
        </div>

        <div>
          <h2 className="text-sm font-semibold tracking-wide text-white uppercase">Services</h2>
          <ul className="mt-2 space-y-0.5 text-sm">
            {SERVICES.map((service) => (
              <li key={service.name}>
                <Link to={service.page} reloadDocument className={`${link} hover:text-white hover:underline`}>
                  {service.name}
                </Link>
              </li>
            ))}
          </ul>
        </div>

        <div>
          <h2 className="text-sm font-semibold tracking-wide text-white uppercase">Contact</h2>
          <ul className="mt-2 space-y-1.5 text-sm">
            <li className="flex items-start gap-2">
              <Phone aria-hidden="true" className={icon} />
              <a href={telHref(content["contact.phone"])} className={`${link} hover:text-white hover:underline`}>
                {content["contact.phone"]}
              </a>
            </li>
            <li className="flex items-start gap-2">
              <Mail aria-hidden="true" className={icon} />
              <a
                href={`mailto:${content["contact.email"]}`}
                className={`${link} break-all hover:text-white hover:underline`}
              >
                {content["contact.email"]}
              </a>
            </li>
            <li className="flex items-start gap-2">
              <MapPin aria-hidden="true" className="mt-1.5 h-4 w-4 shrink-0" />
              <address className="py-1 not-italic">{splitLines(content["contact.address"]).join(", ")}</address>
            </li>
            {serving ? <li className="py-1 pl-6">{serving}</li> : null}
          </ul>
        </div>
      </div>
      <div className="border-t border-stone-800">
        <p className="mx-auto max-w-7xl px-4 py-6 text-xs text-stone-400 sm:px-6 lg:px-8">
          © {identity.copyrightYear} {identity.companyName}. All rights reserved.
        </p>
      </div>
    </footer>
  );
}
