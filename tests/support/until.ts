/**
 * Resolves once `check` holds, asking again every `intervalMs`; rejects after `timeoutMs`.
 * For waiting on work another process or a background task finishes, never for the passing of time.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 5_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
