/**
 * The bench's result rows and the pure arithmetic on them: ratios within one round, and the median of several
 * rounds (on a shared machine one round can be off by a fifth; the median of alternating rounds is what to compare).
 */
import type { LoadResult } from "./h2load.js";
import { bareH2Name, baselineName, type PeerMatch } from "./targets.js";

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
  /** Bytes the server's GC promoted to the old generation per request, over the same window as the CPU. */
  promotedBytesPerRequest: number | null;
  /** GC pauses as a share of the server's CPU time over that window (0..1). */
  gcShare: number | null;
  /** The longest single GC pause in that window, in ms; over several rounds, the longest of any round. */
  maxGcPauseMs: number | null;
  /** The peers this row is compared with (from its target), and its req/s as a multiple of each one's. */
  versus?: PeerMatch[];
  versusPeers?: Record<string, number | null>;
  /** Rows measured at a fixed offered load: half of `capacityOf`'s req/s in the same round. */
  fixedRate?: FixedRate;
}

export interface FixedRate {
  capacityOf: string;
  /** The bare handler's row at that load: the p99 the others are compared with. */
  isBaseline: boolean;
  offeredRps: number;
  /** p99 over the baseline's p99 at the same offered load. */
  p99VsBaseline: number | null;
  /** The same target's row at full load (its capacity), when the run has one. */
  fullLoadRow?: string;
  /** The offered load over that row's req/s in the same round: how close to saturation the p99 was taken. */
  ofOwnCapacity: number | null;
}

/** The peer row `match` names for `row`: same protocol and streams, name matched case-insensitively. */
export function peerOf(row: Pick<Row, "protocol" | "streams">, rows: Row[], match: PeerMatch): Row | undefined {
  return rows.find((r) => {
    const name = r.name.toLowerCase();
    return !r.fixedRate && r.protocol === row.protocol && r.streams === row.streams &&
      name.includes(match.includes.toLowerCase()) && !(match.excludes && name.includes(match.excludes.toLowerCase()));
  });
}

const ratio = (a: number, b: number | undefined) => (b !== undefined && b > 0 ? a / b : null);

/**
 * Sets each row's ratios against the references measured in the same round: req/s against the bare handlers and the
 * peers, and for rows at a fixed offered load, p99 against the bare handler's p99 at that load and the load against
 * the target's own capacity.
 */
export function setRatios(rows: Row[]): Row[] {
  const bare = rows.find((r) => r.name === baselineName);
  for (const r of rows) r.ratioToBare = ratio(r.reqPerSec, bare?.reqPerSec);
  // HTTP/2 rows against the bare HTTP/2 handler at the same -m.
  for (const r of rows.filter((row) => row.protocol === "h2c")) {
    const bareH2 = rows.find((row) => !row.fixedRate && row.name.startsWith(bareH2Name) && row.streams === r.streams);
    r.ratioToBareH2 = ratio(r.reqPerSec, bareH2?.reqPerSec);
  }
  for (const r of rows) {
    if (r.versus) r.versusPeers = Object.fromEntries(r.versus.map((m) => [m.label, ratio(r.reqPerSec, peerOf(r, rows, m)?.reqPerSec)]));
    if (r.fixedRate) {
      const { capacityOf, fullLoadRow } = r.fixedRate;
      const baseline = rows.find((b) => b.fixedRate?.isBaseline && b.fixedRate.capacityOf === capacityOf);
      r.fixedRate.p99VsBaseline = ratio(r.p99Ms, baseline?.p99Ms);
      r.fixedRate.ofOwnCapacity = ratio(r.fixedRate.offeredRps, rows.find((f) => f.name === fullLoadRow)?.reqPerSec);
    }
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
      promotedBytesPerRequest: median((r) => r.promotedBytesPerRequest),
      gcShare: median((r) => r.gcShare),
      // The worst round's: one long pause is what a median of rounds would hide.
      maxGcPauseMs: all.some((r) => r.maxGcPauseMs === null) ? null : Math.max(...all.map((r) => r.maxGcPauseMs!)),
      ratioToBare: median((r) => r.ratioToBare),
      ratioToBareH2: median((r) => r.ratioToBareH2),
      non2xx: sum(all.map((r) => r.non2xx)),
      failed: sum(all.map((r) => r.failed)),
      ...(metrics && { metrics }),
      ...(row.versusPeers && {
        versusPeers: Object.fromEntries(Object.keys(row.versusPeers).map((label) => [label, median((r) => r.versusPeers?.[label] ?? null)])),
      }),
      ...(row.fixedRate && {
        fixedRate: {
          ...row.fixedRate,
          offeredRps: median((r) => r.fixedRate?.offeredRps ?? null) as number,
          p99VsBaseline: median((r) => r.fixedRate?.p99VsBaseline ?? null),
          ofOwnCapacity: median((r) => r.fixedRate?.ofOwnCapacity ?? null),
        },
      }),
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
