import { useQuery } from "@tanstack/react-query";
import { ShieldAlert } from "lucide-react";
import { BUCKET_PUBLIC_MESSAGE, type BucketPrivacy } from "~/storage/bucket-privacy";
import { TechnicalDetails } from "../owner-notice";

export const BUCKET_PRIVACY_KEY = ["/api/admin/storage/privacy"] as const;

/** Red notice when the start-up check downloaded a private object without a key (decision 0048). */
export function BucketPrivacyNotice() {
  const privacy = useQuery<BucketPrivacy>({ queryKey: BUCKET_PRIVACY_KEY });
  if (privacy.data?.status !== "public") return null;
  return (
    <section
      aria-labelledby="bucket-privacy-title"
      className="rounded-xl border border-red-300 bg-red-50 p-5 text-red-950"
    >
      <h2 id="bucket-privacy-title" className="flex items-center gap-2 text-lg font-bold">
        <ShieldAlert aria-hidden="true" className="h-5 w-5 shrink-0" />
        {BUCKET_PUBLIC_MESSAGE}
      </h2>
      <TechnicalDetails className="mt-1">
        <p>
          At start-up the site stored a test file among the original photos and backups, and these addresses handed it
          out to anyone, with no key. docs/DEPLOY.md, &ldquo;Keeping the bucket private&rdquo;, says what to change for
          each storage provider.
        </p>
        <ul className="mt-2 list-disc pl-5 break-all">
          {privacy.data.readableAt.map((url) => (
            <li key={url}>
              <code>{url}</code>
            </li>
          ))}
        </ul>
      </TechnicalDetails>
    </section>
  );
}
