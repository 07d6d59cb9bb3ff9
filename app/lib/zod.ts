import { z } from "zod";

// zod 4 probes `new Function` to compile fast parsers. The pages' CSP forbids
// eval (rightly), so the probe would log a CSP violation in every browser that
// loads a schema. Interpreted parsing is plenty fast for these small payloads.
z.config({ jitless: true });

export { z };

/** The first message for each of `fields` (a form shows one per field); issues on other paths are left out. */
export function firstErrorPerField<F extends string>(
  error: z.ZodError,
  fields: readonly F[],
): Partial<Record<F, string>> {
  const errors: Partial<Record<F, string>> = {};
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (typeof field === "string" && (fields as readonly string[]).includes(field) && !errors[field as F]) {
      errors[field as F] = issue.message;
    }
  }
  return errors;
}
