import { createRequire } from "node:module";

/** The subset of autocannon's API the benches use (it ships no type declarations). */
export type Autocannon = (options: Record<string, unknown>) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  statusCodeStats?: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}>;

export const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

/** Status code → count. */
export const statusCounts = (result: Awaited<ReturnType<Autocannon>>) =>
  Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
