import { bucketStart, nextBucketStart, type Granularity } from "../time-buckets.js";
import { refuse, type TimeUnit } from "./sql-plan.js";

/** A value of the time arithmetic a WHERE may use: an instant, a plain number, or an interval. */
export type TimeValue = { t: "instant"; ms: number } | { t: "number"; n: number } | { t: "interval"; ms: number; months: number };

const UNIT_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };
const UNIT_MONTHS: Record<string, number> = { month: 1, quarter: 3, year: 12 };

/** An INTERVAL of `n` of a unit (`INTERVAL 7 DAY`, `toIntervalDay(7)`); an unknown unit is refused. */
export function interval(n: number, unit: string): TimeValue {
  const u = unit.toLowerCase().replace(/s$/, "");
  if (u in UNIT_MS) return { t: "interval", ms: n * UNIT_MS[u], months: 0 };
  if (u in UNIT_MONTHS) return { t: "interval", ms: 0, months: n * UNIT_MONTHS[u] };
  throw refuse(`The interval unit ${unit} is not supported; use SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR.`);
}

/** Adds (sign 1) or subtracts (-1) an interval; months follow the UTC calendar, clamped to the month's end. */
export function shift(ms: number, by: { ms: number; months: number }, sign: 1 | -1): number {
  let out = ms + sign * by.ms;
  if (by.months !== 0) {
    const date = new Date(out);
    const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + sign * by.months, 1));
    const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
    target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
    out = target.getTime() + (out % 86_400_000 + 86_400_000) % 86_400_000;
  }
  return out;
}

/** The start of the unit holding `ms` (UTC); weeks start on Sunday, as ClickHouse's toStartOfWeek by default. */
export function floorTo(ms: number, unit: TimeUnit): number {
  if (unit === "week") {
    const day = bucketStart(ms, "day");
    return day - new Date(day).getUTCDay() * 86_400_000;
  }
  if (unit === "year") return Date.UTC(new Date(ms).getUTCFullYear(), 0, 1);
  return bucketStart(ms, unit);
}

/** The first bucket start at or after `ms`: an aggregated table's row counts under `time >= x` iff it starts there. */
export function ceilTo(ms: number, granularity: Granularity): number {
  const start = bucketStart(ms, granularity);
  return start === ms ? ms : nextBucketStart(start, granularity);
}

/** The engine bucket fine enough for a unit: weeks are folded from days, years from months. */
export function engineGranularity(unit: TimeUnit): Granularity {
  return unit === "week" ? "day" : unit === "year" ? "month" : unit;
}

const ORDER: TimeUnit[] = ["minute", "hour", "day", "week", "month", "year"];

/** The coarser of two units (a `toStartOfMinute` over an hourly table is still hourly). */
export function coarser(a: TimeUnit, b: TimeUnit): TimeUnit {
  return ORDER.indexOf(a) >= ORDER.indexOf(b) ? a : b;
}

/** The finer of two units. */
export function finer(a: TimeUnit, b: TimeUnit): TimeUnit {
  return ORDER.indexOf(a) <= ORDER.indexOf(b) ? a : b;
}
