import { MutationCache, QueryCache, QueryClient, type QueryKey } from "@tanstack/react-query";
import { toast } from "~/components/ui/use-toast";
import { ApiError, getJson, isUnauthorizedError } from "~/lib/api-client";
import { leaveWithoutPrompt } from "./unsaved-changes";

/** Spec §4, §8: what a 401 anywhere in the admin shows, and how long before the reload. */
export const UNAUTHORIZED_TOAST = {
  title: "Unauthorized",
  description: "You are logged out. Logging in again...",
} as const;
export const UNAUTHORIZED_REDIRECT_DELAY_MS = 500;

/** Query keys are the URL paths they read. */
export const AUTH_USER_KEY = ["/api/auth/user"] as const;
export const SUBMISSIONS_KEY = ["/api/admin/contact-submissions"] as const;
export const INBOX_SUMMARY_KEY = ["/api/admin/contact-submissions/summary"] as const;
export const NOTIFICATIONS_STATUS_KEY = ["/api/admin/notifications/status"] as const;
export const contentKey = (key: string) => [`/api/content/${key}`] as const;
export const galleryKey = (type: string) => [`/api/galleries/${type}`] as const;

/** Mutations that handle their own 401 (signing in and out) carry this meta. */
export const HANDLES_OWN_401 = { handlesOwn401: true } as const;

/** Where the page is already going, if a hard navigation has started. */
let leavingFor: string | null = null;
if (typeof window !== "undefined") {
  // Back from the next page (the back/forward cache): this page is in use again.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) leavingFor = null;
  });
}

/** A full load on purpose (no prompt about unsaved text); the first destination wins, so a 401 cannot undo logout. */
export function hardNavigate(url: string) {
  if (leavingFor !== null) return;
  leavingFor = url;
  leaveWithoutPrompt();
  window.location.href = url;
}

/** The default query function: GET the key's URL as JSON (a 401 throws). */
async function getQueryKey({ queryKey }: { queryKey: QueryKey }) {
  const [url] = queryKey;
  if (typeof url !== "string") throw new Error(`Query key must start with a URL, got ${String(url)}`);
  return getJson<unknown>(url);
}

/**
 * One QueryClient per admin mount (spec §9): no retries, refetch or polling. networkMode "always": offline, a call
 * fails at once with its spec message rather than being resent by itself later (a retry). A 401 toasts once, reloads.
 */
export function createAdminQueryClient(options: { navigate?: (url: string) => void } = {}): QueryClient {
  const navigate = options.navigate ?? hardNavigate;
  let signingOut = false;
  const onUnauthorized = (error: unknown) => {
    if (signingOut || !isUnauthorizedError(error)) return;
    signingOut = true;
    toast({ ...UNAUTHORIZED_TOAST, variant: "destructive" });
    setTimeout(() => navigate("/admin"), UNAUTHORIZED_REDIRECT_DELAY_MS);
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: onUnauthorized }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (mutation.meta?.handlesOwn401) return;
        onUnauthorized(error);
      },
    }),
    defaultOptions: {
      queries: {
        queryFn: getQueryKey,
        retry: false,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        refetchInterval: false,
        staleTime: Infinity,
        networkMode: "always",
      },
      mutations: { retry: false, networkMode: "always" },
    },
  });
}

export function invalidateGalleries(queryClient: QueryClient) {
  return queryClient.invalidateQueries({
    predicate: (query) => typeof query.queryKey[0] === "string" && query.queryKey[0].startsWith("/api/galleries/"),
  });
}

/** A mutation's failure toast (not on a 401: that has its own); `fromServer`: the server's message, if any. */
export function failureToast(which: { title: string; description: string }, options: { fromServer?: boolean } = {}) {
  return (error: unknown) => {
    if (isUnauthorizedError(error)) return;
    const description = options.fromServer ? serverMessage(error, which.description) : which.description;
    toast({ title: which.title, description, variant: "destructive" });
  };
}

/** Per-field messages from a 400 `{ message, errors }`; none for any other answer (a proxy's page, say). */
export function serverFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 400) return {};
  let errors: unknown;
  try {
    errors = (JSON.parse(error.responseText) as { errors?: unknown } | null)?.errors;
  } catch {
    return {};
  }
  if (typeof errors !== "object" || errors === null || Array.isArray(errors)) return {};
  return Object.fromEntries(
    Object.entries(errors).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string" && entry[1].trim() !== "",
    ),
  );
}

export function serverMessage(error: unknown, fallback: string): string {
  const text = (error as { responseText?: unknown })?.responseText;
  if (typeof text === "string" && text) {
    try {
      const parsed = JSON.parse(text) as { message?: unknown };
      if (typeof parsed.message === "string" && parsed.message.trim()) return parsed.message;
    } catch {
      // Not JSON: fall through.
    }
  }
  return fallback;
}
