import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "~/components/ui/use-toast";
import type { AdminListItem, OwnerList } from "~/content/lists";
import { apiRequest } from "~/lib/api-client";
import { failureToast } from "../query-client";

/** A list's data in the admin (its query key is the URL it reads) and the writes, with the galleries' toasts. */

export type Item = AdminListItem<OwnerList>;
export type ItemFields = Record<string, string>;

export const listKey = (list: OwnerList) => [`/api/admin/${list.key}`] as const;
const itemPath = (list: OwnerList, id: string) => `/api/admin/${list.key}/${encodeURIComponent(id)}`;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "Review deleted successfully", "Delete failed": the galleries' toasts (spec §8), for this list's items. */
export function listToasts(list: OwnerList) {
  const Item = capitalised(list.item);
  const success = (description: string) => ({ title: "Success", description });
  return {
    added: success(`${Item} added successfully`),
    updated: success(`${Item} updated successfully`),
    hidden: success(`${Item} hidden from the website`),
    shown: success(`${Item} shown on the website`),
    deleted: success(`${Item} deleted successfully`),
    reordered: success(`${Item} order updated`),
    addFailed: { title: "Add failed", description: `Failed to add ${list.item}` },
    updateFailed: { title: "Update failed", description: `Failed to update ${list.item}` },
    deleteFailed: { title: "Delete failed", description: `Failed to delete ${list.item}` },
    reorderFailed: { title: "Reorder failed", description: `Failed to reorder ${list.item}s` },
  };
}

export const useListItems = (list: OwnerList) => useQuery<Item[]>({ queryKey: listKey(list) });

function useRefetch(list: OwnerList) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: listKey(list) });
}

/** Adds an item, or changes one (`id`); the caller shows field errors from a 400 (its onError). */
export function useSaveItem(list: OwnerList) {
  const refetch = useRefetch(list);
  const toasts = listToasts(list);
  return useMutation({
    mutationFn: ({ id, fields }: { id?: string; fields: ItemFields }) =>
      id ? apiRequest("PATCH", itemPath(list, id), fields) : apiRequest("POST", `/api/admin/${list.key}`, fields),
    onSuccess: async (_res, { id }) => {
      toast(id ? toasts.updated : toasts.added);
      await refetch();
    },
  });
}

export function useSetHidden(list: OwnerList) {
  const refetch = useRefetch(list);
  const toasts = listToasts(list);
  return useMutation({
    mutationFn: ({ id, hidden }: { id: string; hidden: boolean }) =>
      apiRequest("PATCH", itemPath(list, id), { hidden }),
    onSuccess: async (_res, { hidden }) => {
      toast(hidden ? toasts.hidden : toasts.shown);
      await refetch();
    },
    onError: failureToast(toasts.updateFailed),
  });
}

export function useDeleteItem(list: OwnerList) {
  const refetch = useRefetch(list);
  const toasts = listToasts(list);
  return useMutation({
    mutationFn: (id: string) => apiRequest("DELETE", itemPath(list, id)),
    onSuccess: async () => {
      toast(toasts.deleted);
      await refetch();
    },
    onError: failureToast(toasts.deleteFailed),
  });
}

/** Reorders optimistically, as the galleries do; a failure puts the old order back. */
export function useReorderItems(list: OwnerList) {
  const queryClient = useQueryClient();
  const toasts = listToasts(list);
  const queryKey = listKey(list);
  return useMutation({
    mutationFn: (items: Item[]) => apiRequest("PUT", `/api/admin/${list.key}/reorder`, { ids: items.map((i) => i.id) }),
    onMutate: async (items) => {
      await queryClient.cancelQueries({ queryKey });
      const previous = queryClient.getQueryData<Item[]>(queryKey);
      queryClient.setQueryData<Item[]>(queryKey, items);
      return { previous };
    },
    onError: (error, _items, context) => {
      if (context?.previous) queryClient.setQueryData(queryKey, context.previous);
      failureToast(toasts.reorderFailed)(error);
    },
    onSuccess: async () => {
      toast(toasts.reordered);
      await queryClient.invalidateQueries({ queryKey });
    },
  });
}
