import { z } from "~/lib/zod";
import { MAX_LIST_ITEMS, type ListField, type OwnerList } from "./lists";
import { isHttpsAddress } from "./sections";

/** The request bodies of a list's API, built from its declaration (./lists.ts); the admin's form checks the same. */

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

function fieldSchema(field: ListField) {
  const { label } = field;
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${label} is required` : `${label} must be text`) })
    .trim()
    .max(field.max, `${label} must be at most ${field.max} characters`)
    .refine((value) => !field.required || value !== "", `${label} is required`)
    .refine(
      (value) => value === "" || !field.choices || field.choices.includes(value),
      `${label} must be one of: ${field.choices?.join(", ")}`,
    )
    .refine(
      (value) => value === "" || field.format !== "month" || MONTH.test(value),
      `${label} must be a month, YYYY-MM`,
    )
    .refine(
      (value) => value === "" || field.format !== "https" || isHttpsAddress(value),
      `${label} must be an https:// address`,
    );
}

const shapeOf = (list: OwnerList, optional: boolean) =>
  Object.fromEntries(
    Object.entries(list.fields).map(([name, field]) => {
      const schema = fieldSchema(field);
      return [name, optional || !field.required ? (optional ? schema.optional() : schema.default("")) : schema];
    }),
  );

/** POST /api/admin/<list>: every required field, the others "" when left out. */
export const newItemSchema = (list: OwnerList) => z.object(shapeOf(list, false));

/** PATCH /api/admin/<list>/:id: any field, and `hidden`. */
export const itemChangeSchema = (list: OwnerList) =>
  z.object({ ...shapeOf(list, true), hidden: z.boolean({ error: "hidden must be true or false" }).optional() });

/** PUT /api/admin/<list>/reorder. */
export const reorderItemsSchema = z.object({
  ids: z
    .array(z.string().min(1).max(100), { error: "ids must be a list of ids" })
    .max(MAX_LIST_ITEMS, `ids must list at most ${MAX_LIST_ITEMS} ids`),
});
