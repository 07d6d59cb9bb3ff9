import { cn } from "~/lib/cn";

/** Text inputs and textareas, on the public site and in the admin alike. */
export const fieldClasses = (invalid = false) =>
  cn(
    "mt-1 block w-full rounded-md border bg-white px-3 py-2.5 text-base text-stone-900 shadow-sm",
    "focus:border-brand-600 focus:ring-2 focus:ring-brand-600/30 focus:outline-none",
    "disabled:cursor-not-allowed disabled:bg-stone-100",
    invalid ? "border-red-700" : "border-stone-400",
  );

/** A field's validation message, under it; the input points here with aria-describedby. */
export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="mt-1 text-sm font-medium text-red-700">
      {message}
    </p>
  ) : null;
}
