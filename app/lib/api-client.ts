/** The browser's one way to call the API (spec §7, §8); a non-OK answer throws "{status}: {text}". */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly responseText: string,
    statusText: string,
  ) {
    super(`${status}: ${responseText || statusText}`);
  }
}

async function throwIfResNotOk(res: Response): Promise<void> {
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    throw new ApiError(res.status, text, res.statusText);
  }
}

export async function apiRequest(method: string, url: string, data?: unknown): Promise<Response> {
  const res = await fetch(url, {
    method,
    headers: data !== undefined ? { "Content-Type": "application/json" } : {},
    body: data !== undefined ? JSON.stringify(data) : undefined,
    credentials: "include",
  });
  await throwIfResNotOk(res);
  return res;
}

/** GET as JSON. With on401 "returnNull", a 401 resolves to null instead of throwing. */
export async function getJson<T>(url: string, options: { on401?: "throw" | "returnNull" } = {}): Promise<T | null> {
  const res = await fetch(url, { credentials: "include" });
  if (options.on401 === "returnNull" && res.status === 401) return null;
  await throwIfResNotOk(res);
  return (await res.json()) as T;
}

export function isUnauthorizedError(error: unknown): boolean {
  return error instanceof ApiError ? error.status === 401 : /^401: /.test(String((error as Error)?.message));
}
