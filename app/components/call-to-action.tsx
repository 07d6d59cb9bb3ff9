import { MessageSquare, Phone } from "lucide-react";
import { Link } from "react-router";
import { telHref } from "~/identity";
import { buttonClasses } from "./ui/button";
import { Paragraphs } from "./page-header";

/** The call-to-action card closing the Stonework and Hard Landscaping pages. */
export function CallToAction({
  title,
  text,
  phone,
  showMessageButton = false,
}: {
  title: string;
  text: string;
  phone: string;
  showMessageButton?: boolean;
}) {
  return (
    <section aria-labelledby="cta-title" className="mx-auto max-w-7xl px-4 pb-16 sm:px-6 lg:px-8">
      <div className="rounded-2xl bg-brand-50 p-8 text-center ring-1 ring-brand-100 sm:p-12">
        <h2 id="cta-title" className="font-display text-2xl font-bold text-stone-900 sm:text-3xl">
          {title}
        </h2>
        <div className="mx-auto mt-4 max-w-2xl space-y-3 text-stone-700">
          <Paragraphs text={text} />
        </div>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <a href={telHref(phone)} className={buttonClasses("primary", "lg")}>
            <Phone aria-hidden="true" className="h-5 w-5" />
            Call {phone}
          </a>
          {showMessageButton ? (
            <Link to="/contact" className={buttonClasses("outline", "lg")}>
              <MessageSquare aria-hidden="true" className="h-5 w-5" />
              Send Message
            </Link>
          ) : null}
        </div>
      </div>
    </section>
  );
}
