import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "~/components/ui/use-toast";
import type { AdminListItem, OwnerList } from "~/content/lists";
import { apiRequest } from "~/lib/api-client";
import { failureToast } from "../query-client";

/** A list's data in the admin (its query key is the URL it reads) and its writes, with the galleries' toasts. */

export type Item = AdminListItem<OwnerList>;
export type ItemFields = Record<string, string>;

const listUrl = (list: OwnerList) => `/api/admin/${list.key}`;
const itemUrl = (list: OwnerList, id: string) => `${listUrl(list)}/${encodeURIComponent(id)}`;

/** "Review deleted successfully", "Delete failed": the galleries' toasts (spec §8), for this list's items. */
export function listToasts({ item }: OwnerList) {
  const success = (description: string) => ({ title: "Success", description });
  const Item = item.charAt(0).toUpperCase() + item.slice(1);
  return {
    added: success(`${Item} added successfully`),
    updated: success(`${Item} updated successfully`),
    hidden: success(`${Item} hidden from the website`),
    shown: success(`${Item} shown on the website`),
    deleted: success(`${Item} deleted successfully`),
    reordered: success(`${Item} order updated`),
    addFailed: { title: "Add failed", description: `Failed to add ${item}` },
    updateFailed: { title: "Update failed", description: `Failed to update ${item}` },
    deleteFailed: { title: "Delete failed", description: `Failed to delete ${item}` },
    reorderFailed: { title: "Reorder failed", description: `Failed to reorder ${item}s` },
  };
}

export const useListItems = (list: OwnerList) => useQuery<Item[]>({ queryKey: [listUrl(list)] });

/** A write: its toast on success, then the list read again; `failed` (if given) is the failure's toast. */
function useListWrite<V>(
  list: OwnerList,
  send: (variables: V) => Promise<Response>,
  succeeded: (variables: V) => { title: string; description: string },
  failed?: { title: string; description: string },
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: async (_res, variables) => {
      toast(succeeded(variables));
      await queryClient.invalidateQueries({ queryKey: [listUrl(list)] });
    },
    onError: failed ? failureToast(failed) : undefined,
  });
}

/** Adds an item, or changes one (`id`); the caller shows a 400's field errors. */
export const useSaveItem = (list: OwnerList) =>
  useListWrite(
    list,
    ({ id, fields }: { id?: string; fields: ItemFields }) =>
      id ? apiRequest("PATCH", itemUrl(list, id), fields) : apiRequest("POST", listUrl(list), fields),
    ({ id }) => (id ? listToasts(list).updated : listToasts(list).added),
  );

export const useSetHidden = (list: OwnerList) =>
  useListWrite(
    list,
    ({ id, hidden }: { id: string; hidden: boolean }) => apiRequest("PATCH", itemUrl(list, id), { hidden }),
    ({ hidden }) => (hidden ? listToasts(list).hidden : listToasts(list).shown),
    listToasts(list).updateFailed,
  );

export const useDeleteItem = (list: OwnerList) =>
  useListWrite(
    list,
    (id: string) => apiRequest("DELETE", itemUrl(list, id)),
    () => listToasts(list).deleted,
    listToasts(list).deleteFailed,
  );

/** Reorders optimistically, as the galleries do; a failure puts the old order back. */
export function useReorderItems(list: OwnerList) {
  const queryClient = useQueryClient();
  const queryKey = [listUrl(list)];
  return useMutation({
    mutationFn: (items: Item[]) => apiRequest("PUT", `${listUrl(list)}/reorder`, { ids: items.map((i) => i.id) }),
    onMutate: async (items) => {
      await queryClient.cancelQueries({ queryKey });
      const previous = queryClient.getQueryData<Item[]>(queryKey);
      queryClient.setQueryData<Item[]>(queryKey, items);
      return { previous };
    },
    onError: (error, _items, context) => {
      if (context?.previous) queryClient.setQueryData(queryKey, context.previous);
      failureToast(listToasts(list).reorderFailed)(error);
    },
    onSuccess: async () => {
      toast(listToasts(list).reordered);
      await queryClient.invalidateQueries({ queryKey });
    },
  });
}
