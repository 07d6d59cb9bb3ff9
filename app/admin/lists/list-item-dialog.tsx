import { useId, useMemo, useState, type FormEvent } from "react";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "~/components/ui/dialog";
import { FieldError, fieldClasses, focusFirstInvalid } from "~/components/ui/form-field";
import { newItemSchema } from "~/content/list-schema";
import { fieldNamesOf, type ListField, type OwnerList } from "~/content/lists";
import { firstErrorPerField } from "~/lib/zod";
import { DialogFormActions } from "../dialog-form-parts";
import { failureToast, serverFieldErrors } from "../query-client";
import { listToasts, useSaveItem, type Item, type ItemFields } from "./list-queries";

/** Adding or editing one item: a field for each of the list's declared fields, checked by the API's own schema. */
export function ListItemDialog({ list, item, onClose }: { list: OwnerList; item?: Item; onClose: () => void }) {
  const names = fieldNamesOf(list);
  const [values, setValues] = useState<ItemFields>(() =>
    Object.fromEntries(names.map((name) => [name, item ? String(item[name] ?? "") : ""])),
  );
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const schema = useMemo(() => newItemSchema(list), [list]);
  const save = useSaveItem(list);
  const toasts = listToasts(list);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const parsed = schema.safeParse(values);
    const showErrors = (found: Partial<Record<string, string>>) => {
      setErrors(found);
      focusFirstInvalid(form, names, found);
    };
    if (!parsed.success) return showErrors(firstErrorPerField(parsed.error, names));
    save.mutate(
      { id: item?.id, fields: parsed.data as ItemFields },
      {
        onSuccess: onClose,
        onError: (error) => {
          const fromServer = serverFieldErrors(error);
          if (Object.keys(fromServer).length) showErrors(fromServer);
          else failureToast(item ? toasts.updateFailed : toasts.addFailed, { fromServer: true })(error);
        },
      },
    );
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !save.isPending && onClose()}>
      <DialogContent closeDisabled={save.isPending}>
        <DialogTitle className="pr-10 text-xl font-bold">{item ? `Edit ${list.item}` : `Add ${list.item}`}</DialogTitle>
        <DialogDescription className="mt-1 text-sm text-stone-700">
          It shows on the website as you write it here, unless you hide it.
        </DialogDescription>
        <form noValidate onSubmit={submit} className="mt-4 space-y-4">
          {names.map((name) => (
            <FieldInput
              key={name}
              name={name}
              field={list.fields[name]!}
              value={values[name] ?? ""}
              error={errors[name]}
              onChange={(value) => setValues((current) => ({ ...current, [name]: value }))}
            />
          ))}
          <DialogFormActions pending={save.isPending} label="Save" pendingLabel="Saving..." />
        </form>
      </DialogContent>
    </Dialog>
  );
}

function FieldInput(props: {
  name: string;
  field: ListField;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  const { name, field, value, error } = props;
  const id = `${useId()}-${name}`;
  const hintId = field.hint && !error ? `${id}-hint` : undefined;
  const control = {
    id,
    name,
    value,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": (error ? `${id}-error` : hintId) ?? undefined,
    className: fieldClasses(Boolean(error)),
    onChange: (event: { target: { value: string } }) => props.onChange(event.target.value),
  };
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-semibold text-stone-800">
        {field.label}
        {field.required ? null : <span className="font-normal text-stone-600"> (optional)</span>}
      </label>
      {field.multiline ? (
        <textarea rows={4} maxLength={field.max} {...control} />
      ) : field.choices ? (
        <select {...control}>
          <option value="">Not given</option>
          {field.choices.map((choice) => (
            <option key={choice}>{choice}</option>
          ))}
        </select>
      ) : (
        <input
          type={field.format === "month" ? "month" : field.format === "https" ? "url" : "text"}
          maxLength={field.max}
          {...control}
        />
      )}
      {hintId ? (
        <p id={hintId} className="mt-1 text-sm text-stone-600">
          {field.hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
