import {
  useInfiniteQuery,
  useMutation,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
} from "@tanstack/react-query";
import { INBOX_PAGE_SIZE, type InboxItem } from "~/contact/inbox";
import { toast } from "~/components/ui/use-toast";
import { apiRequest, getJson } from "~/lib/api-client";
import { INBOX_SUMMARY_KEY, NOTIFICATIONS_STATUS_KEY, SUBMISSIONS_KEY } from "../query-client";

/** The inbox's data: pages of 50 followed by cursor, and the writes that change one item. */

type Pages = InfiniteData<InboxItem[], string | null>;

export const inboxKey = (unreadOnly: boolean) => [...SUBMISSIONS_KEY, { unreadOnly }] as const;

function inboxUrl(unreadOnly: boolean, before: string | null): string {
  const params = new URLSearchParams({ limit: String(INBOX_PAGE_SIZE) });
  if (unreadOnly) params.set("unread", "1");
  if (before) params.set("before", before);
  return `${SUBMISSIONS_KEY[0]}?${params}`;
}

export function useInbox(unreadOnly: boolean) {
  return useInfiniteQuery({
    queryKey: inboxKey(unreadOnly),
    queryFn: async ({ pageParam }) => (await getJson<InboxItem[]>(inboxUrl(unreadOnly, pageParam)))!,
    initialPageParam: null as string | null,
    // A full page may have more behind it; the last item's cursor asks for them.
    getNextPageParam: (last) => (last.length === INBOX_PAGE_SIZE ? last[last.length - 1]!.cursor : undefined),
  });
}

/** Puts a changed item in place in every loaded list (it stays where it is until the list is loaded again). */
function replaceItem(queryClient: QueryClient, item: InboxItem) {
  queryClient.setQueriesData<Pages>({ queryKey: SUBMISSIONS_KEY }, (data) =>
    data
      ? { ...data, pages: data.pages.map((page) => page.map((entry) => (entry.id === item.id ? item : entry))) }
      : data,
  );
}

function removeItem(queryClient: QueryClient, id: string) {
  queryClient.setQueriesData<Pages>({ queryKey: SUBMISSIONS_KEY }, (data) =>
    data ? { ...data, pages: data.pages.map((page) => page.filter((entry) => entry.id !== id)) } : data,
  );
}

const path = (id: string) => `${SUBMISSIONS_KEY[0]}/${encodeURIComponent(id)}`;

export function useSetRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, read }: { id: string; read: boolean }) =>
      (await (await apiRequest("PATCH", path(id), { read })).json()) as InboxItem,
    onSuccess: (item) => {
      replaceItem(queryClient, item);
      void queryClient.invalidateQueries({ queryKey: INBOX_SUMMARY_KEY });
    },
  });
}

export function useDeleteEnquiry() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id }: { id: string; name: string }) => apiRequest("DELETE", path(id)),
    onSuccess: (_res, { id, name }) => {
      // Said here, not by the card: the card is gone with the item.
      toast({ title: "Enquiry deleted", description: `The enquiry from ${name} was deleted.` });
      removeItem(queryClient, id);
      void queryClient.invalidateQueries({ queryKey: INBOX_SUMMARY_KEY });
      void queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_STATUS_KEY });
    },
  });
}

export function useResendNotification() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await (await apiRequest("POST", `${path(id)}/resend`)).json()) as InboxItem,
    onSuccess: (item) => {
      replaceItem(queryClient, item);
      void queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_STATUS_KEY });
    },
  });
}
