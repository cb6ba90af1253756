/** Time buckets of verification analytics: fixed UTC-aligned spans, and calendar months in UTC. */
export type Granularity = "minute" | "hour" | "day" | "month";

export const GRANULARITIES: readonly Granularity[] = ["minute", "hour", "day", "month"];

const FIXED_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/** Start (unix ms) of the bucket holding `time`: floor to the minute/hour/UTC day, or the 1st of the UTC month. */
export function bucketStart(time: number, granularity: Granularity): number {
  if (granularity === "month") {
    const date = new Date(time);
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  }
  const ms = FIXED_MS[granularity];
  return Math.floor(time / ms) * ms;
}

/** Start of the bucket after the one starting at `start` (a month's length follows the calendar, leap years too). */
export function nextBucketStart(start: number, granularity: Granularity): number {
  if (granularity === "month") {
    const date = new Date(start);
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
  return start + FIXED_MS[granularity];
}

/** How many buckets [start, end) touches; 0 when end <= start. Counted arithmetically, never by iterating. */
export function bucketCount(start: number, end: number, granularity: Granularity): number {
  if (end <= start) return 0;
  const first = bucketStart(start, granularity);
  const last = bucketStart(end - 1, granularity);
  if (granularity === "month") {
    const a = new Date(first);
    const b = new Date(last);
    return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth()) + 1;
  }
  return (last - first) / FIXED_MS[granularity] + 1;
}
