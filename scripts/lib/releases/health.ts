import type { Clock } from "~/lib/clock";

/** How long a new release has to answer /healthz with 200 after the restart. */
export const HEALTH_TIMEOUT_MS = 60_000;
const PROBE_INTERVAL_MS = 500;
const PROBE_TIMEOUT_MS = 2_000;

/** One GET: the status, or null when nothing answered in time. */
export type Probe = (url: string) => Promise<number | null>;

export const probeHttp: Probe = async (url) => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), cache: "no-store" });
    await response.body?.cancel();
    return response.status;
  } catch {
    return null;
  }
};

/** Asks `url` every half second until it answers 200 (true) or `timeoutMs` has passed on `clock` (false). */
export async function waitForHealth(
  url: string,
  options: { clock: Clock; sleep: (ms: number) => Promise<void>; probe: Probe; timeoutMs?: number },
): Promise<boolean> {
  const deadline = options.clock.now().getTime() + (options.timeoutMs ?? HEALTH_TIMEOUT_MS);
  for (;;) {
    if ((await options.probe(url)) === 200) return true;
    if (options.clock.now().getTime() >= deadline) return false;
    await options.sleep(PROBE_INTERVAL_MS);
  }
}
