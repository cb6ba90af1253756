import { bucketStart, nextBucketStart, type Granularity } from "../time-buckets.js";
import { describe, functionArgs, functionName, stringValue, type Node } from "./sql-ast.js";
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

/** The `toStartOf...` functions (lower-cased) and the unit each floors to. */
export const START_OF: Record<string, TimeUnit> = {
  tostartofminute: "minute", tostartofhour: "hour", tostartofday: "day", todate: "day", tostartofweek: "week",
  tostartofmonth: "month", tostartofyear: "year",
};
const INTERVAL_FN = /^tointerval(second|minute|hour|day|week|month|quarter|year)$/;

/** Evaluates the time arithmetic of a comparison: now(), INTERVALs, toStartOf...(), unix conversions, literals. */
export function evalTime(node: Node, now: number): TimeValue {
  if (node.type === "number") return { t: "number", n: Number(node.value) };
  if (node.type === "interval") {
    const n = evalTime(node.expr, now);
    if (n.t !== "number") throw refuse("INTERVAL takes a number.");
    return interval(n.n, String(node.unit));
  }
  const text = stringValue(node);
  if (text !== undefined) {
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
    if (Number.isNaN(ms)) throw refuse(`'${text}' is not a date and time.`);
    return { t: "instant", ms };
  }
  if (node.type === "binary_expr" && ["+", "-", "*", "/"].includes(node.operator)) {
    const left = evalTime(node.left, now);
    const right = evalTime(node.right, now);
    if (left.t === "instant" && right.t === "interval" && node.operator !== "*" && node.operator !== "/") {
      return { t: "instant", ms: shift(left.ms, right, node.operator === "+" ? 1 : -1) };
    }
    if (left.t === "number" && right.t === "number") {
      const n = node.operator === "+" ? left.n + right.n : node.operator === "-" ? left.n - right.n
        : node.operator === "*" ? left.n * right.n : left.n / right.n;
      return { t: "number", n };
    }
    throw refuse(`The operator ${node.operator} between these time values is not supported.`);
  }
  if (node.type === "function") {
    const name = functionName(node).toLowerCase();
    const args = functionArgs(node).map((arg) => evalTime(arg, now));
    const instant = (i = 0) => {
      const arg = args[i];
      if (arg?.t === "instant") return arg.ms;
      throw refuse(`${functionName(node)}() takes a date and time, such as now().`);
    };
    const number = (i = 0) => {
      const arg = args[i];
      if (arg?.t === "number") return arg.n;
      throw refuse(`${functionName(node)}() takes a number.`);
    };
    if (name === "now" || name === "now64") return { t: "instant", ms: now };
    if (name === "today") return { t: "instant", ms: floorTo(now, "day") };
    if (name === "yesterday") return { t: "instant", ms: floorTo(now, "day") - 86_400_000 };
    if (name in START_OF) return { t: "instant", ms: floorTo(instant(), START_OF[name]) };
    if (name === "tounixtimestamp") return { t: "number", n: Math.floor(instant() / 1000) };
    if (name === "tounixtimestamp64milli") return { t: "number", n: instant() };
    if (name === "fromunixtimestamp64milli") return { t: "instant", ms: number() };
    if (name === "todatetime" || name === "todatetime64") {
      return args[0]?.t === "instant" ? args[0] : { t: "instant", ms: number() * 1000 };
    }
    const unit = INTERVAL_FN.exec(name)?.[1];
    if (unit) return interval(number(), unit);
  }
  throw refuse(`${describe(node)} is not supported in a time comparison.`);
}
