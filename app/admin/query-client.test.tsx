import { onlineManager, useMutation, useQuery } from "@tanstack/react-query";
import { act, fireEvent, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toast } from "~/components/ui/use-toast";
import { ApiError, apiRequest } from "~/lib/api-client";
import {
  createAdminQueryClient,
  failureToast,
  hardNavigate,
  invalidateGalleries,
  serverFieldErrors,
  serverMessage,
} from "./query-client";
import { json, mockFetch, renderWithClient } from "./test-helpers";

vi.mock("~/components/ui/use-toast", () => ({ toast: vi.fn() }));

function TwoQueriesAndAMutation() {
  const a = useQuery({ queryKey: ["/api/admin/contact-submissions"] });
  const b = useQuery({ queryKey: ["/api/galleries/veneer"] });
  const save = useMutation({ mutationFn: () => apiRequest("PUT", "/api/admin/content/hero.title", { content: "x" }) });
  return (
    <div>
      <p>{a.isError && b.isError ? "both failed" : "waiting"}</p>
      <button type="button" onClick={() => save.mutate()}>
        save
      </button>
    </div>
  );
}

/** A query and a mutation, each saying how it stands. */
function OneQueryAndAMutation() {
  const gallery = useQuery({ queryKey: ["/api/galleries/veneer"] });
  const save = useMutation({ mutationFn: () => apiRequest("PUT", "/api/admin/content/hero.title", { content: "x" }) });
  return (
    <div>
      <p>query: {gallery.status}</p>
      <p>mutation: {save.status}</p>
      <button type="button" onClick={() => save.mutate()}>
        save
      </button>
    </div>
  );
}

describe("createAdminQueryClient", () => {
  beforeEach(() => vi.mocked(toast).mockClear());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("has the spec's defaults: no retries, no refetch on focus, never stale", () => {
    const client = createAdminQueryClient({ navigate: vi.fn() });
    const { queries, mutations } = client.getDefaultOptions();
    expect(queries?.retry).toBe(false);
    expect(mutations?.retry).toBe(false);
    expect(queries?.refetchOnWindowFocus).toBe(false);
    expect(queries?.refetchInterval).toBe(false);
    expect(queries?.staleTime).toBe(Infinity);
  });

  it("offline, a query and a mutation are tried at once and fail; none is sent again when the signal returns", async () => {
    vi.useFakeTimers();
    // What an offline browser's fetch does.
    const fetchMock = vi.fn(() => Promise.reject(new TypeError("Failed to fetch")));
    vi.stubGlobal("fetch", fetchMock);
    onlineManager.setOnline(false);
    try {
      renderWithClient(<OneQueryAndAMutation />, createAdminQueryClient({ navigate: vi.fn() }));
      fireEvent.click(screen.getByRole("button", { name: "save" }));
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(screen.getByText("query: error")).toBeInTheDocument();
      expect(screen.getByText("mutation: error")).toBeInTheDocument();
      expect(fetchMock).toHaveBeenCalledTimes(2);

      act(() => onlineManager.setOnline(true));
      await act(() => vi.advanceTimersByTimeAsync(60_000));
      expect(fetchMock).toHaveBeenCalledTimes(2);
    } finally {
      onlineManager.setOnline(true);
    }
  });

  it("answers any 401 with one 'Unauthorized' toast and one reload of /admin 500 ms later", async () => {
    // Time moves only when the test moves it.
    vi.useFakeTimers();
    const { calls } = mockFetch([
      { method: "GET", path: /.*/, respond: () => json(401, { message: "Unauthorized" }) },
      { method: "PUT", path: /.*/, respond: () => json(401, { message: "Unauthorized" }) },
    ]);
    const navigate = vi.fn();
    renderWithClient(<TwoQueriesAndAMutation />, createAdminQueryClient({ navigate }));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByText("both failed")).toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "save" }));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(calls.filter((c) => c.method === "PUT")).toHaveLength(1);
    expect(toast).toHaveBeenCalledTimes(1);
    expect(toast).toHaveBeenCalledWith({
      title: "Unauthorized",
      description: "You are logged out. Logging in again...",
      variant: "destructive",
    });
    await act(() => vi.advanceTimersByTimeAsync(499));
    expect(navigate).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(navigate).toHaveBeenCalledExactlyOnceWith("/admin");
    // Three 401s, one reload: nothing else is scheduled.
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(navigate).toHaveBeenCalledTimes(1);
    // Queries are not retried.
    expect(calls.filter((c) => c.url === "/api/galleries/veneer")).toHaveLength(1);
  });

  it("waits 500 ms before the reload", async () => {
    vi.useFakeTimers();
    mockFetch([{ method: "GET", path: /.*/, respond: () => json(401, { message: "Unauthorized" }) }]);
    const navigate = vi.fn();
    const client = createAdminQueryClient({ navigate });
    await client.fetchQuery({ queryKey: ["/api/admin/contact-submissions"] }).catch(() => undefined);
    expect(toast).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(499);
    expect(navigate).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(navigate).toHaveBeenCalledWith("/admin");
  });

  it("leaves other failures to the screens", async () => {
    vi.useFakeTimers();
    mockFetch([{ method: "GET", path: /.*/, respond: () => json(500, { message: "boom" }) }]);
    const navigate = vi.fn();
    const client = createAdminQueryClient({ navigate });
    await client.fetchQuery({ queryKey: ["/api/galleries/traditional"] }).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(toast).not.toHaveBeenCalled();
    expect(navigate).not.toHaveBeenCalled();
  });

  it("marks every gallery list, and nothing else, for a refetch after a gallery write", async () => {
    mockFetch([{ method: "GET", path: /.*/, respond: () => json(200, []) }]);
    const client = createAdminQueryClient({ navigate: vi.fn() });
    const keys = ["/api/galleries/traditional", "/api/galleries/veneer", "/api/content/hero.title"];
    for (const key of keys) await client.fetchQuery({ queryKey: [key] });
    await invalidateGalleries(client);
    expect(keys.map((key) => client.getQueryState([key])?.isInvalidated)).toEqual([true, true, false]);
  });

  it("a mutation's failure toast: none on a 401 (that has its own), the given text, or the server's message with fromServer", () => {
    const which = { title: "Delete failed", description: "Could not delete the enquiry." };
    failureToast(which)(new ApiError(401, '{"message":"Authentication required"}', "Unauthorized"));
    expect(toast).not.toHaveBeenCalled();
    failureToast(which)(new ApiError(500, '{"message":"Disk full"}', "Internal Server Error"));
    expect(toast).toHaveBeenLastCalledWith({ ...which, variant: "destructive" });
    failureToast(which, { fromServer: true })(new ApiError(500, '{"message":"Disk full"}', "Internal Server Error"));
    expect(toast).toHaveBeenLastCalledWith({
      title: "Delete failed",
      description: "Disk full",
      variant: "destructive",
    });
    failureToast(which, { fromServer: true })(new TypeError("Failed to fetch"));
    expect(toast).toHaveBeenLastCalledWith({ ...which, variant: "destructive" });
  });

  it("reads the server's message from an error", () => {
    expect(serverMessage({ responseText: '{"message":"Nope"}' }, "fallback")).toBe("Nope");
    expect(serverMessage({ responseText: "<html>" }, "fallback")).toBe("fallback");
    expect(serverMessage(new Error("x"), "fallback")).toBe("fallback");
  });

  it("reads the server's messages per field from a 400 only, and nothing from a body that is not that JSON", () => {
    const answer = (status: number, body: string) => new ApiError(status, body, "");
    expect(
      serverFieldErrors(answer(400, '{"message":"m","errors":{"currentPassword":"Not right","code":"Wrong"}}')),
    ).toEqual({
      currentPassword: "Not right",
      code: "Wrong",
    });
    expect(serverFieldErrors(answer(429, '{"errors":{"currentPassword":"Not right"}}'))).toEqual({});
    for (const body of [
      "<html>Bad Request</html>",
      "",
      "null",
      "[]",
      '"text"',
      '{"errors":"oops"}',
      '{"errors":["a"]}',
    ]) {
      expect(serverFieldErrors(answer(400, body)), body).toEqual({});
    }
    expect(serverFieldErrors(answer(400, '{"errors":{"a":"","b":3,"c":"Kept"}}'))).toEqual({ c: "Kept" });
    expect(serverFieldErrors(new Error("400"))).toEqual({});
  });
});

describe("hardNavigate", () => {
  it("keeps the first destination: a 401 while logout's page loads does not send the owner back to /admin", async () => {
    vi.useFakeTimers();
    vi.mocked(toast).mockClear();
    const location = { href: "http://127.0.0.1/admin" };
    const real = Object.getOwnPropertyDescriptor(window, "location")!;
    Object.defineProperty(window, "location", { configurable: true, value: location });
    try {
      const client = createAdminQueryClient();
      hardNavigate("/");
      mockFetch([{ method: "GET", path: /.*/, respond: () => json(401, { message: "Unauthorized" }) }]);
      await client.fetchQuery({ queryKey: ["/api/admin/activity"] }).catch(() => undefined);
      expect(toast).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(500);
      expect(location.href).toBe("/");

      // Back from the home page through the back/forward cache: this page may navigate again.
      window.dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
      hardNavigate("/admin");
      expect(location.href).toBe("/admin");
    } finally {
      Object.defineProperty(window, "location", real);
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });
});
