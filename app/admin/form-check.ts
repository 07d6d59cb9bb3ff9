import { focusFirstInvalid } from "~/components/ui/form-field";
import { firstErrorPerField, type z } from "~/lib/zod";

/** Checks an admin form (the contact form does its own: it loads its schema lazily, keeping zod off public pages). */
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
