import type { InputHTMLAttributes } from "react";
import { cn } from "~/lib/cn";

/** Text inputs and textareas, on the public site and in the admin alike. */
export const fieldClasses = (invalid = false) =>
  cn(
    "mt-1 block w-full rounded-md border bg-white px-3 py-2.5 text-base text-stone-900 shadow-sm",
    "focus:border-brand-600 focus:ring-2 focus:ring-brand-600/30 focus:outline-none",
    "disabled:cursor-not-allowed disabled:bg-stone-100",
    invalid ? "border-red-700" : "border-stone-400",
  );

/** Focuses the first field, in form order, that has an error: keyboard and screen-reader users land on it. */
export function focusFirstInvalid(
  form: HTMLFormElement,
  order: readonly string[],
  errors: Partial<Record<string, string>>,
) {
  const first = order.find((name) => errors[name]);
  if (first) form.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
}

/** A field's validation message, under it; the input points here with aria-describedby. */
export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="mt-1 text-sm font-medium text-red-700">
      {message}
    </p>
  ) : null;
}

type TextFieldProps = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "id" | "className" | "aria-invalid" | "aria-describedby"
> & {
  id: string;
  label: string;
  error?: string;
  /** Help under the field, shown until there is an error to show instead. */
  hint?: string;
  /** Classes for the wrapper (its place in a grid), not the input. */
  className?: string;
};

/** A labelled input with its hint and its validation message, wired for screen readers. */
export function TextField({ id, label, error, hint, className, ...input }: TextFieldProps) {
  const hintId = hint && !error ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-semibold text-stone-800">
        {label}
      </label>
      <input
        id={id}
        {...input}
        aria-invalid={error ? true : undefined}
        aria-describedby={[errorId, hintId].filter(Boolean).join(" ") || undefined}
        className={fieldClasses(Boolean(error))}
      />
      {hintId ? (
        <p id={hintId} className="mt-1 text-sm text-stone-600">
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
