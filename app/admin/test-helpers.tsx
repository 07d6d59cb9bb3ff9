import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { vi } from "vitest";
import { TooltipProvider } from "~/components/ui/tooltip";
import type { GalleryImage, GalleryType } from "~/galleries/gallery";
import { createAdminQueryClient } from "./query-client";

/** Test support for the admin's component tests (not a test file itself). */

export type MockRoute = {
  method: string;
  path: string | RegExp;
  respond: (request: { body: unknown; url: string }) => Response | Promise<Response>;
};

export const json = (status: number, body: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });

/** Replaces fetch with a tiny router; records every call. */
export function mockFetch(routes: MockRoute[]) {
  const calls: { method: string; url: string; body: unknown }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = (init?.method ?? "GET").toUpperCase();
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    calls.push({ method, url, body });
    const route = routes.find(
      (r) => r.method === method && (typeof r.path === "string" ? r.path === url : r.path.test(url)),
    );
    if (!route) return json(404, { message: `No mock for ${method} ${url}` });
    return route.respond({ body, url });
  });
  vi.stubGlobal("fetch", fetchMock);
  return { calls, fetchMock };
}

/** A promise with its resolve exposed, to hold a response back. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export function renderWithClient(
  ui: ReactElement,
  queryClient: QueryClient = createAdminQueryClient({ navigate: vi.fn() }),
) {
  return {
    queryClient,
    ...render(
      <QueryClientProvider client={queryClient}>
        <TooltipProvider>{ui}</TooltipProvider>
      </QueryClientProvider>,
    ),
  };
}

export function galleryImage(
  id: string,
  caption = "",
  galleryType: GalleryType = "traditional",
  sortOrder = 0,
): GalleryImage {
  const variant = (width: number, ext: string) => ({
    width,
    height: Math.round(width / 1.5),
    path: `/media/${id}-${width}.${ext}`,
    bytes: 1000,
  });
  return {
    id,
    imagePath: `/media/${id}.jpg`,
    caption,
    galleryType,
    sortOrder,
    width: 1200,
    height: 800,
    placeholder: "",
    variants: { avif: [variant(480, "avif")], webp: [variant(480, "webp")], jpeg: variant(1200, "jpg") },
  };
}
