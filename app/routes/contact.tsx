import { Mail, MapPin, Phone, User } from "lucide-react";
import { data, redirect } from "react-router";
import type { ContactActionResult } from "~/components/contact-form";
import { ContactIslandRoot } from "~/components/contact-island";
import { PageHeader, Paragraphs } from "~/components/page-header";
import { contactSentLocation, sentFromUrl } from "~/contact/contact-result";
import { contactFieldErrors, contactMessageSchema } from "~/contact/contact-schema";
import { submitEnquiry } from "~/contact/submissions.server";
import type { ReactNode } from "react";
import { ReviewCard, type Review } from "~/components/reviews-section";
import { readContent } from "~/content/content.server";
import { REVIEWS } from "~/content/lists";
import { itemsShownOn } from "~/content/lists.server";
import { sectionKeysInGroup, servingLine } from "~/content/sections";
import { identity, splitLines, telHref } from "~/identity";
import { pageMeta, siteSeoFrom } from "~/content/seo";
import type { Route } from "./+types/contact";
import type { PublicPageHandle } from "~/islands/islands";

export async function loader({ request, context }: Route.LoaderArgs) {
  const onFallback = context.markDegraded;
  const [content, reviews] = await Promise.all([
    readContent(context.services, [...sectionKeysInGroup("contact"), ...sectionKeysInGroup("contact_info")], {
      onFallback,
    }),
    itemsShownOn(context.services, REVIEWS, "/contact", { onFallback }),
  ]);
  return {
    content,
    reviews,
    // A post from another site is shown this page instead of reaching the action.
    crossSiteRefused: context.crossSiteRefused,
    // The page a stored no-JS post is redirected to.
    sent: sentFromUrl(new URL(request.url)),
  };
}

/**
 * The no-JavaScript path: same schema, honeypot and limit as POST /api/contact. Multipart photos were read by
 * server/middleware/contact-multipart.ts (outcome in the load context). Stored: a 303 (contact-result.ts).
 */
export async function action({ request, context }: Route.ActionArgs) {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    // The body broke off: over the 64 KB page-body limit (server/react-router-handler.ts), or the visitor left.
    return data({ status: "failed", values: {} } satisfies ContactActionResult, { status: 413 });
  }
  const values: Record<string, string> = {};
  for (const [key, value] of form) if (typeof value === "string") values[key] = value;
  const kept = {
    name: values.name ?? "",
    email: values.email ?? "",
    phone: values.phone ?? "",
    message: values.message ?? "",
  };
  const photos = context.contactPhotos;
  if (photos?.status === "refused") {
    // Nothing is stored: the text comes back with the reasons, and the visitor picks the photos again.
    const parsed = contactMessageSchema.safeParse(values);
    const errors = parsed.success ? {} : contactFieldErrors(parsed.error);
    return data(
      { status: "photos-refused", messages: photos.messages, errors, values: kept } satisfies ContactActionResult,
      {
        status: photos.httpStatus,
        headers: photos.retryAfterSeconds ? { "Retry-After": String(photos.retryAfterSeconds) } : undefined,
      },
    );
  }
  const photoTokens = photos?.status === "accepted" ? photos.tokens : [];
  const outcome = await submitEnquiry(context.services, values, context.clientIp, { photoTokens });
  switch (outcome.status) {
    case "stored":
      return redirect(contactSentLocation(outcome.photos), 303);
    case "trapped":
      return redirect(contactSentLocation(), 303);
    case "invalid":
      return data({ status: "invalid", errors: outcome.errors, values: kept } satisfies ContactActionResult, {
        status: 400,
      });
    case "rate-limited":
      return data({ status: "failed", values: kept } satisfies ContactActionResult, {
        status: 429,
        headers: { "Retry-After": String(outcome.retryAfterSeconds) },
      });
  }
}

export const handle: PublicPageHandle = { islands: ["contact"] };

export function meta({ data, matches }: Route.MetaArgs) {
  const name = data?.content["contact.name"] ?? identity.ownerName;
  return pageMeta({
    title: `About ${name} & Contact | ${identity.businessName}`,
    description: `${data?.content["about.subtitle"] ?? ""}. Call ${data?.content["contact.phone"] ?? identity.phone} or send a message for a free quote.`,
    path: "/contact",
    seo: siteSeoFrom(matches),
  });
}

export default function Contact({ loaderData, actionData }: Route.ComponentProps) {
  const { content } = loaderData;
  const phone = content["contact.phone"];
  const email = content["contact.email"];
  const serving = servingLine(content["contact.areas"]);
  const review = loaderData.reviews[0];
  return (
    <>
      <PageHeader title={`About ${content["contact.name"]}`}>
        <p>{content["about.subtitle"]}</p>
      </PageHeader>

      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-14 sm:px-6 lg:grid-cols-3 lg:px-8">
        <section aria-labelledby="experience-title" className="lg:col-span-2">
          <h2 id="experience-title" className="font-display text-3xl font-bold">
            Experience &amp; Expertise
          </h2>
          <div className="mt-5 space-y-4 text-lg leading-8 text-stone-700">
            <Paragraphs text={content["about.bio"]} />
          </div>
        </section>

        <GetInTouchBeside review={review}>
          <section
            aria-labelledby="get-in-touch-title"
            className="h-fit rounded-xl bg-white p-6 shadow-sm ring-1 ring-stone-200"
          >
            <h2 id="get-in-touch-title" className="font-display text-2xl font-bold">
              Get In Touch
            </h2>
            <ul className="mt-5 space-y-2 text-stone-800">
              <li className="flex items-start gap-3">
                <User aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-brand-700" />
                <span>{content["contact.name"]}</span>
              </li>
              {/* The call and e-mail links are primary actions on a phone: at least 44 px tall. */}
              <li className="flex items-center gap-3">
                <Phone aria-hidden="true" className="h-5 w-5 shrink-0 text-brand-700" />
                <a
                  href={telHref(phone)}
                  className="inline-flex min-h-11 items-center font-medium text-brand-700 underline-offset-2 hover:underline"
                >
                  {phone}
                </a>
              </li>
              <li className="flex items-center gap-3">
                <Mail aria-hidden="true" className="h-5 w-5 shrink-0 text-brand-700" />
                <a
                  href={`mailto:${email}`}
                  className="inline-flex min-h-11 items-center font-medium break-all text-brand-700 underline-offset-2 hover:underline"
                >
                  {email}
                </a>
              </li>
              <li className="flex items-start gap-3">
                <MapPin aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-brand-700" />
                <address className="not-italic">
                  {splitLines(content["contact.address"]).map((line, i) => (
                    <span key={i} className="block">
                      {line}
                    </span>
                  ))}
                </address>
              </li>
              {serving ? <li className="pl-8 text-stone-700">{serving}</li> : null}
            </ul>
          </section>
        </GetInTouchBeside>
      </div>

      <section aria-labelledby="contact-form-title" className="bg-white">
        <div className="mx-auto max-w-3xl px-4 py-14 sm:px-6 lg:px-8">
          <h2 id="contact-form-title" className="font-display text-3xl font-bold">
            Send a Message
          </h2>
          <p className="mt-3 mb-8 text-stone-700">
            Tell us a little about your project and we will get back to you, usually within a couple of working days.
          </p>
          <ContactIslandRoot serverResult={actionData ?? resultOfLoad(loaderData)} contactEmail={email} />
        </div>
      </section>
    </>
  );
}

/** The Get In Touch card, with the owner's first review under it when there is one (the spec's card alone otherwise). */
function GetInTouchBeside({ review, children }: { review: Review | undefined; children: ReactNode }) {
  if (!review) return children;
  return (
    <div className="space-y-6">
      {children}
      <ReviewCard review={review} />
    </div>
  );
}

/** What the page shows without a post of its own: a refused cross-site post, or the redirect after a stored one. */
function resultOfLoad(loaderData: Route.ComponentProps["loaderData"]): ContactActionResult | undefined {
  if (loaderData.crossSiteRefused) return { status: "refused" };
  if (loaderData.sent) return { status: "sent", photos: loaderData.sent };
  return undefined;
}
