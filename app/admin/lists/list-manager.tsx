import { useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { Eye, EyeOff, GripVertical, ListPlus, Pencil, Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import type { OwnerList } from "~/content/lists";
import { plural } from "~/lib/plural";
import { publicPageLabel } from "~/public-pages";
import { cn } from "~/lib/cn";
import { LoadFailed, SubViewFrame } from "../admin-ui";
import { SortableArea } from "../sortable";
import { ListItemDialog } from "./list-item-dialog";
import { useDeleteItem, useListItems, useReorderItems, useSetHidden, type Item } from "./list-queries";

/** Where the shown items go: "The first 3 shown are on Home, the first 1 on Contact." */
const whereShown = (list: OwnerList) =>
  Object.entries(list.shownOn)
    .map(([path, count]) => `the first ${count} on ${publicPageLabel(path) ?? path}`)
    .join(", ");

/** A list the owner edits, as the gallery manager is (spec §2): add, edit, hide or show, delete, reorder by drag. */
export function ListManager({ list, onBack }: { list: OwnerList; onBack: () => void }) {
  const items = useListItems(list);
  const reorder = useReorderItems(list);
  const [editing, setEditing] = useState<Item | "new" | null>(null);
  const all = items.data ?? [];

  return (
    <SubViewFrame
      title={list.title}
      onBack={onBack}
      actions={
        <Button className="w-full sm:w-auto" onClick={() => setEditing("new")}>
          <Plus aria-hidden="true" className="h-4 w-4" />
          Add {list.item.charAt(0).toUpperCase() + list.item.slice(1)}
        </Button>
      }
      intro={<p>Shown on the website in this order, unless hidden: {whereShown(list)}.</p>}
    >
      {items.isPending ? (
        <p role="status" className="text-stone-700">
          Loading {list.item}s...
        </p>
      ) : items.isError ? (
        <LoadFailed
          message={`Unable to load ${list.item}s.`}
          onRetry={() => void items.refetch()}
          retrying={items.isFetching}
        />
      ) : all.length === 0 ? (
        <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-stone-300 bg-white p-10 text-center">
          <ListPlus aria-hidden="true" className="h-10 w-10 text-stone-500" />
          <p className="text-lg font-semibold text-stone-900">No {list.item}s yet</p>
          <p className="text-stone-600">Add your first {list.item} to show it on the website</p>
        </div>
      ) : (
        <>
          <p className="rounded-lg bg-brand-50 px-4 py-3 text-sm text-stone-800">
            {plural(all.length, list.item, `${list.item}s`)}. Tip: drag by the handle to reorder (on a phone, press and
            hold it first).
          </p>
          <SortableArea
            items={all}
            noun={`a ${list.item}`}
            nameOf={(item) => String(item[list.nameField] || list.item)}
            strategy={verticalListSortingStrategy}
            onMove={(reordered) => reorder.mutate(reordered)}
          >
            <ul aria-label={list.title} aria-busy={reorder.isPending || undefined} className="grid gap-3">
              {all.map((item) => (
                <ListItemCard key={item.id} list={list} item={item} onEdit={() => setEditing(item)} />
              ))}
            </ul>
          </SortableArea>
        </>
      )}
      {editing ? (
        <ListItemDialog
          key={editing === "new" ? "new" : editing.id}
          list={list}
          item={editing === "new" ? undefined : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
    </SubViewFrame>
  );
}

function ListItemCard({ list, item, onEdit }: { list: OwnerList; item: Item; onEdit: () => void }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: item.id,
    attributes: { roleDescription: `sortable ${list.item}` },
  });
  const setHidden = useSetHidden(list);
  const remove = useDeleteItem(list);
  const name = String(item[list.nameField] || list.item);
  const [main, ...others] = Object.entries(list.fields).map(([field, { multiline }]) => ({
    value: String(item[field] ?? ""),
    multiline,
  }));
  const busy = setHidden.isPending || remove.isPending;

  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      data-item-id={item.id}
      className={cn(
        "flex gap-3 rounded-lg bg-white p-3 shadow-sm ring-1 ring-stone-200",
        item.hidden && "bg-stone-100",
        isDragging && "z-10 opacity-80 shadow-xl ring-2 ring-brand-700",
        busy && "opacity-60",
      )}
    >
      <button
        ref={setActivatorNodeRef}
        type="button"
        {...attributes}
        {...listeners}
        aria-label={`Drag to reorder ${name}`}
        className="inline-flex h-11 w-11 shrink-0 cursor-grab touch-none items-center justify-center rounded-md bg-white text-stone-800 ring-1 ring-stone-300 active:cursor-grabbing"
      >
        <GripVertical aria-hidden="true" className="h-5 w-5" />
      </button>
      <div className="min-w-0 flex-1">
        {item.hidden ? (
          <span className="rounded-full bg-stone-700 px-2.5 py-0.5 text-xs font-bold text-white uppercase">Hidden</span>
        ) : null}
        <p className={cn("mt-1 line-clamp-3 break-words text-stone-900", main?.multiline && "whitespace-pre-line")}>
          {main?.value}
        </p>
        <p className="mt-1 text-sm break-words text-stone-700">
          {others
            .map((field) => field.value)
            .filter(Boolean)
            .join(" · ")}
        </p>
        <div className="mt-2 flex flex-wrap gap-2">
          <Button variant="outline" size="sm" disabled={busy} onClick={onEdit}>
            <Pencil aria-hidden="true" className="h-4 w-4" />
            Edit<span className="sr-only"> {name}</span>
          </Button>
          <Button
            variant="outline"
            size="sm"
            disabled={busy}
            onClick={() => setHidden.mutate({ id: item.id, hidden: !item.hidden })}
          >
            {item.hidden ? (
              <Eye aria-hidden="true" className="h-4 w-4" />
            ) : (
              <EyeOff aria-hidden="true" className="h-4 w-4" />
            )}
            {item.hidden ? "Show" : "Hide"}
            <span className="sr-only"> {name}</span>
          </Button>
          <Button
            variant="ghost"
            size="sm"
            disabled={busy}
            className="text-red-800 hover:bg-red-50"
            onClick={() => {
              if (window.confirm(`Are you sure you want to delete this ${list.item}?`)) remove.mutate(item.id);
            }}
          >
            <Trash2 aria-hidden="true" className="h-4 w-4" />
            Delete<span className="sr-only"> {name}</span>
          </Button>
        </div>
      </div>
    </li>
  );
}
