import { useQuery } from "@tanstack/react-query";
import type { CurrentUser } from "~/auth/login-schema";
import { getJson } from "~/lib/api-client";
import { AUTH_USER_KEY } from "./query-client";

/** The signed-in administrator, or null (spec §4: any data counts as signed in; never retried). */
export function useCurrentUser() {
  return useQuery({
    queryKey: AUTH_USER_KEY,
    queryFn: () => getJson<CurrentUser>(AUTH_USER_KEY[0], { on401: "returnNull" }),
  });
}
