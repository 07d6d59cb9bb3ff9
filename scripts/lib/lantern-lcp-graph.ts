/**
 * What Lighthouse's simulator (Lantern) put before the simulated LCP of the audit that just ran:
 * each request of its optimistic and pessimistic LCP graphs, with its simulated start and end, so
 * a slow run can be told from a fast one (docs/PERFORMANCE.md, "The favicon and the manifest after
 * the photo"). Read from `Simulator.allNodeTimings`, which keeps the last simulation of each label.
 */
import * as Lantern from "lighthouse/core/lib/lantern/lantern.js";

export function lcpGraphLines(origin: string): string[] {
  const lines: string[] = [];
  for (const [label, timings] of Lantern.Simulation.Simulator.allNodeTimings) {
    if (!/LargestContentfulPaint$/.test(label)) continue;
    lines.push(label);
    const rows = [...timings].sort(([, a], [, b]) => a.startTime - b.startTime);
    for (const [node, timing] of rows) {
      if (node.type !== "network") continue;
      const { request } = node;
      const where = request.url.startsWith("data:") ? `${request.url.slice(0, 24)}…` : request.url.replace(origin, "");
      lines.push(
        `  ${Math.round(timing.startTime)}–${Math.round(timing.endTime)} ms  ${where}  ${request.priority}  ${request.transferSize} B  connection ${request.connectionId}`,
      );
    }
  }
  return lines;
}
