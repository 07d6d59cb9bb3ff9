/** Figures and tables for `npm run bench` and its parts: one copy of each small helper. */

/** A target of the bench and whether this run met it (printed, and kept in reports/bench.json). */
export type Check = { target: string; value: string; met: boolean };

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
