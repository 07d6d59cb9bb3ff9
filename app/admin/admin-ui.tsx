import { ArrowLeft } from "lucide-react";
import { useEffect, useRef, type ReactNode } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { cn } from "~/lib/cn";
import { BackToTop, cardHeadingId, type DashboardCardId } from "./dashboard-cards";

export const cardClasses = "rounded-xl bg-white p-5 shadow-sm ring-1 ring-stone-200 sm:p-6";

/**
 * A view's one h1. With `focusOnMount` it takes focus when the view opens, so
 * keyboard and screen-reader users start at the top of the new view.
 */
export function ViewHeading({
  children,
  focusOnMount = false,
  className,
}: {
  children: ReactNode;
  focusOnMount?: boolean;
  className?: string;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusOnMount) ref.current?.focus({ preventScroll: true });
  }, [focusOnMount]);
  return (
    <h1
      ref={ref}
      tabIndex={-1}
      className={cn("font-display text-3xl font-bold text-stone-900 focus:outline-none sm:text-4xl", className)}
    >
      {children}
    </h1>
  );
}

export function BackButton({ onClick, label = "Back to Dashboard" }: { onClick: () => void; label?: string }) {
  return (
    <Button variant="ghost" size="sm" onClick={onClick} className="-ml-3 text-stone-700">
      <ArrowLeft aria-hidden="true" className="h-4 w-4" />
      {label}
    </Button>
  );
}

/** The frame of every sub-view: a back button above its heading, then the content. */
export function SubViewFrame({
  title,
  onBack,
  actions,
  intro,
  children,
}: {
  title: ReactNode;
  onBack: () => void;
  actions?: ReactNode;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="space-y-6">
      <div>
        <BackButton onClick={onBack} />
        <div className="mt-2 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div>
            <ViewHeading focusOnMount>{title}</ViewHeading>
            {intro ? <div className="mt-2 text-stone-700">{intro}</div> : null}
          </div>
          {actions ? <div className="flex shrink-0 flex-wrap gap-2">{actions}</div> : null}
        </div>
      </div>
      {children}
    </div>
  );
}

/**
 * A card on the dashboard: an icon, a heading that names the section, a line
 * on what it is for, its body, then "Back to top". Its id is one of
 * DASHBOARD_CARDS, which gives it its jump link.
 */
export function DashboardCard({
  id,
  title,
  description,
  icon,
  bodyClassName = "mt-5 grid gap-2",
  children,
}: {
  id: DashboardCardId;
  title: string;
  description: string;
  icon: ReactNode;
  bodyClassName?: string;
  children: ReactNode;
}) {
  return (
    <section id={id} aria-labelledby={cardHeadingId(id)} className={cn(cardClasses, "scroll-mt-20")}>
      <div className="flex items-start gap-3">
        <span className="inline-flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
          {icon}
        </span>
        <div>
          {/* Focusable, so a jump link can move focus to it. */}
          <h2 id={cardHeadingId(id)} tabIndex={-1} className="text-xl font-bold text-stone-900">
            {title}
          </h2>
          <p className="mt-1 text-sm text-stone-700">{description}</p>
        </div>
      </div>
      <div className={bodyClassName}>{children}</div>
      <BackToTop />
    </section>
  );
}

/** Something a view needs could not be loaded: announced at once, with Retry (which spins while it runs). */
export function LoadFailed({ message, onRetry, retrying }: { message: string; onRetry: () => void; retrying: boolean }) {
  return (
    <div role="alert" className="flex flex-col gap-3 rounded-lg border border-red-200 bg-red-50 p-4 text-red-800 sm:flex-row sm:items-center sm:justify-between">
      <p>{message}</p>
      <Button variant="outline" className="shrink-0" disabled={retrying} onClick={onRetry}>
        {retrying ? <Spinner className="h-4 w-4" /> : null}
        Retry
      </Button>
    </div>
  );
}
