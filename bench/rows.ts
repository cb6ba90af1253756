/**
 * The bench's result rows and the pure arithmetic on them: ratios within one round, and the median of several
 * rounds (on a shared machine one round can be off by a fifth; the median of alternating rounds is what to compare).
 */
import type { LoadResult } from "./h2load.js";
import { bareH2Name, baselineName } from "./targets.js";

export interface Row extends LoadResult {
  name: string;
  protocol: string;
  streams: number;
  path: string;
  /** Server CPU per request in µs (estimated over warm-up and load). */
  cpuUsPerRequest: number | null;
  ratioToBare: number | null;
  /** Against the bare node:http2 gRPC handler: the reference for HTTP/2 rows. */
  ratioToBareH2: number | null;
  /** Keyward rows: requests sent by a counted run after the load, and what `/metrics` counted meanwhile. */
  metrics?: { sent: number; counted: number };
}

/** Sets each row's ratios against the references measured in the same round. */
export function setRatios(rows: Row[]): Row[] {
  const bare = rows.find((r) => r.name === baselineName);
  for (const r of rows) r.ratioToBare = bare && bare.reqPerSec > 0 ? r.reqPerSec / bare.reqPerSec : null;
  // HTTP/2 rows against the bare HTTP/2 handler at the same -m.
  for (const r of rows.filter((row) => row.protocol === "h2c")) {
    const bareH2 = rows.find((row) => row.name.startsWith(bareH2Name) && row.streams === r.streams);
    r.ratioToBareH2 = bareH2 && bareH2.reqPerSec > 0 ? r.reqPerSec / bareH2.reqPerSec : null;
  }
  return rows;
}

/**
 * One row per target: the median of each measure over the rounds (ratios are taken within each round first, so a
 * slow round moves a row and its references together), errors and counted requests summed over all rounds.
 */
export function medianOfRounds(rounds: Row[][]): Row[] {
  const [first] = rounds;
  return (first ?? []).map((row) => {
    const all = rounds.map((round) => {
      const same = round.find((r) => r.name === row.name);
      if (!same) throw new Error(`${row.name} is missing from a round`);
      return same;
    });
    const median = (pick: (r: Row) => number | null) => medianOf(all.map(pick));
    const metrics = all.every((r) => r.metrics)
      ? { sent: sum(all.map((r) => r.metrics!.sent)), counted: sum(all.map((r) => r.metrics!.counted)) }
      : undefined;
    return {
      ...row,
      requests: sum(all.map((r) => r.requests)),
      reqPerSec: median((r) => r.reqPerSec) as number,
      p50Ms: median((r) => r.p50Ms) as number,
      p99Ms: median((r) => r.p99Ms) as number,
      meanMs: median((r) => r.meanMs) as number,
      cpuUsPerRequest: median((r) => r.cpuUsPerRequest),
      ratioToBare: median((r) => r.ratioToBare),
      ratioToBareH2: median((r) => r.ratioToBareH2),
      non2xx: sum(all.map((r) => r.non2xx)),
      failed: sum(all.map((r) => r.failed)),
      ...(metrics && { metrics }),
    };
  });
}

/** The median, or null when any value is missing. */
export function medianOf(values: (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null;
  const sorted = (values as number[]).slice().sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
