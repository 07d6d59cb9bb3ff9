import { focusFirstInvalid } from "~/components/ui/form-field";
import { firstErrorPerField, type z } from "~/lib/zod";

/**
 * Checks an admin form: its values, or null with per-field messages and the first invalid field focused.
 * (The contact form loads its schema lazily, to keep zod off the public pages, so it does this itself.)
 */
export function checkedFormValues<F extends string, T>(
  form: HTMLFormElement,
  schema: z.ZodType<T>,
  fields: readonly F[],
  setErrors: (errors: Partial<Record<F, string>>) => void,
): T | null {
  const values = Object.fromEntries(new FormData(form)) as Record<string, string>;
  const parsed = schema.safeParse(values);
  const errors = parsed.success ? {} : firstErrorPerField(parsed.error, fields);
  setErrors(errors);
  if (!parsed.success) {
    focusFirstInvalid(form, fields, errors);
    return null;
  }
  return parsed.data;
}
