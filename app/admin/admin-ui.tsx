import { ArrowLeft } from "lucide-react";
import { useEffect, useRef, type ReactNode } from "react";
import { Button } from "~/components/ui/button";
import { Spinner } from "~/components/ui/spinner";
import { cn } from "~/lib/cn";

export const cardClasses = "rounded-xl bg-white p-4 shadow-sm ring-1 ring-stone-200 sm:p-6";

/** `focusOnMount`: keyboard and screen-reader users start at the top of the new view. */
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

/** A card on the dashboard (spec §2): an icon, a heading that names it, a line on what it is for, then its buttons. */
export function DashboardCard({
  id,
  title,
  description,
  icon,
  bodyClassName = "mt-4 grid gap-2",
  children,
}: {
  id: string;
  title: string;
  description: string;
  icon: ReactNode;
  bodyClassName?: string;
  children: ReactNode;
}) {
  const headingId = `${id}-title`;
  return (
    <section id={id} aria-labelledby={headingId} className={cardClasses}>
      <div className="flex items-start gap-3">
        {/* On a phone the card's width goes to its title and buttons. */}
        <span className="hidden h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-700 sm:inline-flex">
          {icon}
        </span>
        <div>
          <h2 id={headingId} className="text-xl font-bold text-stone-900">
            {title}
          </h2>
          <p className="mt-1 text-sm text-stone-700">{description}</p>
        </div>
      </div>
      <div className={bodyClassName}>{children}</div>
    </section>
  );
}

/** A "Settings and reports" sub-view: Back to Dashboard, title, purpose, its content in one card region. */
export function SettingsView({
  title,
  description,
  onBack,
  bodyClassName = "grid gap-3",
  children,
}: {
  title: string;
  description: string;
  onBack: () => void;
  bodyClassName?: string;
  children: ReactNode;
}) {
  return (
    <SubViewFrame title={title} onBack={onBack} intro={description}>
      <section aria-label={title} className={cn(cardClasses, bodyClassName)}>
        {children}
      </section>
    </SubViewFrame>
  );
}

/** Something a view needs could not be loaded: announced at once, with Retry (which spins while it runs). */
export function LoadFailed({
  message,
  onRetry,
  retrying,
}: {
  message: string;
  onRetry: () => void;
  retrying: boolean;
}) {
  return (
    <div
      role="alert"
      className="flex flex-col gap-3 rounded-lg border border-red-200 bg-red-50 p-4 text-red-800 sm:flex-row sm:items-center sm:justify-between"
    >
      <p>{message}</p>
      <Button variant="outline" className="shrink-0" disabled={retrying} onClick={onRetry}>
        {retrying ? <Spinner className="h-4 w-4" /> : null}
        Retry
      </Button>
    </div>
  );
}
