import type { ReactNode } from "react";

/** The title band at the top of an inner page. */
export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <div className="bg-stone-900 text-white">
      <div className="mx-auto max-w-7xl px-4 py-14 sm:px-6 sm:py-20 lg:px-8">
        <h1 className="font-display text-4xl font-bold tracking-tight sm:text-5xl">{title}</h1>
        {children ? <div className="mt-5 max-w-3xl text-lg leading-8 text-stone-200">{children}</div> : null}
      </div>
    </div>
  );
}

/** Text that may hold blank-line separated paragraphs. */
export function Paragraphs({ text, className }: { text: string; className?: string }) {
  const paragraphs = text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  return (
    <>
      {paragraphs.map((paragraph, i) => (
        <p key={i} className={className ? `${className} whitespace-pre-line` : "whitespace-pre-line"}>
          {paragraph}
        </p>
      ))}
    </>
  );
}
