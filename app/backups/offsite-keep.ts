/**
 * Which off-site copies to keep (decision 0060), as restic's `forget
 * --keep-hourly H --keep-daily D --keep-monthly M` decides: going from the
 * newest copy back, the newest copy of each of the last H hours that have a
 * copy, of each of the last D days, and of each of the last M months (UTC).
 * A copy kept by any rule stays. The newest copy is always kept. When copies
 * stop for a while (a server that was off), the older ones are not lost to
 * the gap: the rules count periods that have a copy, not hours on the clock.
 */
export type KeepPolicy = { hourly: number; daily: number; monthly: number };

export type KeepDecision<C> = { keep: C[]; remove: C[] };

const PERIODS: Record<keyof KeepPolicy, (at: Date) => string> = {
  hourly: (at) => at.toISOString().slice(0, 13),
  daily: (at) => at.toISOString().slice(0, 10),
  monthly: (at) => at.toISOString().slice(0, 7),
};

export function applyKeepPolicy<C extends { at: Date }>(copies: readonly C[], policy: KeepPolicy): KeepDecision<C> {
  const newestFirst = [...copies].sort((a, b) => b.at.getTime() - a.at.getTime());
  const kept = new Set<C>(newestFirst.slice(0, 1));
  for (const rule of Object.keys(PERIODS) as (keyof KeepPolicy)[]) {
    let left = policy[rule];
    let lastPeriod: string | null = null;
    for (const copy of newestFirst) {
      if (left <= 0) break;
      const period = PERIODS[rule](copy.at);
      if (period === lastPeriod) continue;
      lastPeriod = period;
      kept.add(copy);
      left -= 1;
    }
  }
  return { keep: newestFirst.filter((copy) => kept.has(copy)), remove: newestFirst.filter((copy) => !kept.has(copy)) };
}
