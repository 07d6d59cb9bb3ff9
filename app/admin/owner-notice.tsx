import { AlertTriangle, Info } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "~/lib/cn";
import { DETAILS_HEADING } from "~/lib/plain-words";

/** The disclosure that holds a notice's technical detail. */
export const DETAILS_SUMMARY = DETAILS_HEADING;

const TONES = {
  /** Something is off that the owner should know about (e-mail off). */
  warning: { box: "border-amber-300 bg-amber-50 text-amber-950", Icon: Info },
  /** Something is broken or unsafe (a failing backup, a public bucket). */
  danger: { box: "border-red-300 bg-red-50 text-red-950", Icon: AlertTriangle },
} as const;

/** Plain words for the owner, technical detail under DETAILS_SUMMARY; a danger notice is announced as an alert. */
export function OwnerNotice({
  tone,
  title,
  details,
  children,
  testId,
}: {
  tone: keyof typeof TONES;
  /** A short heading, so the notice is a named region (and a place to jump to). */
  title: string;
  /** The plain sentence (and, at most, an action the owner can take). */
  children: ReactNode;
  /** For whoever runs the website: settings to change, the server's exact error. */
  details?: ReactNode;
  testId?: string;
}) {
  const { box, Icon } = TONES[tone];
  return (
    <section aria-label={title} className={cn("rounded-xl border p-4 sm:p-5", box)} data-testid={testId}>
      <p role={tone === "danger" ? "alert" : undefined} className="flex items-start gap-2 font-semibold">
        <Icon aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0" />
        <span>{children}</span>
      </p>
      {details ? <TechnicalDetails className="mt-1">{details}</TechnicalDetails> : null}
    </section>
  );
}

/** Technical words go here and nowhere else in the admin; the summary is a full 44 px tall to tap. */
export function TechnicalDetails({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <details className={cn("text-sm", className)} data-technical-details="">
      <summary className="cursor-pointer py-3 font-medium underline underline-offset-2">{DETAILS_SUMMARY}</summary>
      <div className="space-y-2 pb-1 break-words">{children}</div>
    </details>
  );
}
