import type { RatelimitBucket, VerificationBucket } from "../gen/keyward/v1/analytics_pb.js";

export type Granularity = "minute" | "hour" | "day" | "month";

/** The outcomes a chart shows, with the bucket field that counts each and its series colour. */
export const OUTCOMES = [
  { code: "VALID", field: "valid", color: "#1b7a3a" },
  { code: "RATE_LIMITED", field: "rateLimited", color: "#d97706" },
  { code: "USAGE_EXCEEDED", field: "usageExceeded", color: "#7c3aed" },
  { code: "DISABLED", field: "disabled", color: "#6b7280" },
  { code: "EXPIRED", field: "expired", color: "#0e7490" },
  { code: "FORBIDDEN", field: "forbidden", color: "#b3261e" },
  { code: "INSUFFICIENT_PERMISSIONS", field: "insufficientPermissions", color: "#db2777" },
] as const satisfies readonly Outcome<VerificationBucket>[];

/** The two outcomes of a rate-limit check (analytics.getRatelimits), for the namespace page's chart. */
export const RATELIMIT_OUTCOMES = [
  { code: "PASSED", field: "passed", color: "#1b7a3a" },
  { code: "BLOCKED", field: "blocked", color: "#b3261e" },
] as const satisfies readonly Outcome<RatelimitBucket>[];

/** One series of a chart: its label, the bucket field that counts it and its colour. */
export interface Outcome<Row> {
  code: string;
  field: keyof Row;
  color: string;
}

/** Time ranges the pickers offer, each with the granularities that stay under the API's 2000 buckets. */
export const RANGES = [
  { id: "1h", label: "Last hour", ms: 3_600_000, granularities: ["minute"] },
  { id: "24h", label: "Last 24 hours", ms: 86_400_000, granularities: ["hour", "minute"] },
  { id: "7d", label: "Last 7 days", ms: 7 * 86_400_000, granularities: ["hour", "day"] },
  { id: "30d", label: "Last 30 days", ms: 30 * 86_400_000, granularities: ["day", "hour"] },
  { id: "12mo", label: "Last 12 months", ms: 0, granularities: ["month", "day"] },
] as const satisfies readonly { id: string; label: string; ms: number; granularities: readonly Granularity[] }[];

export type RangeId = (typeof RANGES)[number]["id"];

const STEP: Record<Exclude<Granularity, "month">, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Start of the UTC bucket holding `ms`. */
export function bucketStart(ms: number, granularity: Granularity): number {
  if (granularity === "month") {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  return Math.floor(ms / STEP[granularity]) * STEP[granularity];
}

function nextBucket(ms: number, granularity: Granularity): number {
  if (granularity === "month") {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return ms + STEP[granularity];
}

/**
 * The `[start, end)` of a range ending with the bucket that holds `now`, aligned to bucket starts, so every
 * bucket of the chart is whole and the verifications made just now are counted.
 */
export function rangeBounds(rangeId: RangeId, granularity: Granularity, now: number): { start: number; end: number } {
  const end = nextBucket(bucketStart(now, granularity), granularity);
  if (rangeId === "12mo") {
    const d = new Date(now);
    return { start: bucketStart(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 11, 1), granularity), end };
  }
  const range = RANGES.find((r) => r.id === rangeId) ?? RANGES[1];
  return { start: bucketStart(end - range.ms, granularity), end };
}

/** One bucket of a chart: its start and a count per outcome (in the order of the chart's outcomes) and in total. */
export interface ChartPoint {
  time: number;
  counts: number[];
  total: number;
}

/**
 * Every bucket of `[start, end)`, with zeros where the API answered no row (it leaves empty buckets out).
 * `rows` are ungrouped buckets of one query; `outcomes` says which of their fields to count, in order.
 */
export function fillBuckets<Row extends { time: bigint; total: bigint }>(
  rows: readonly Row[], granularity: Granularity, start: number, end: number,
  outcomes: readonly Outcome<Row>[],
): ChartPoint[] {
  const byTime = new Map(rows.map((row) => [Number(row.time), row]));
  const points: ChartPoint[] = [];
  for (let t = bucketStart(start, granularity); t < end; t = nextBucket(t, granularity)) {
    const row = byTime.get(t);
    const counts = outcomes.map((o) => (row ? Number(row[o.field]) : 0));
    points.push({ time: t, counts, total: row ? Number(row.total) : 0 });
  }
  return points;
}

/** Per outcome, the sum over all points (in the order of the points' counts). */
export function outcomeTotals(points: readonly ChartPoint[]): number[] {
  const width = points[0]?.counts.length ?? 0;
  return Array.from({ length: width }, (_, i) => points.reduce((sum, p) => sum + p.counts[i], 0));
}

/** A bucket's start in words: minutes and hours with the time, days with the date, months as year-month. */
export function bucketLabel(ms: number, granularity: Granularity): string {
  const iso = new Date(ms).toISOString();
  if (granularity === "month") return iso.slice(0, 7);
  if (granularity === "day") return iso.slice(0, 10);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
