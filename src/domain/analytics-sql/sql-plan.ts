import { invalid } from "../errors.js";
import type { Granularity } from "../time-buckets.js";

/**
 * The plan of one Unkey-dialect analytics query (`SELECT ... FROM key_verifications_*_v1 ...`), as the SQL
 * translator produces it and the analytics service runs it on the structured event engine.
 */

/** Unkey's public tables: the raw table (one row per verification) and its per-interval aggregates. */
export const SQL_TABLES: Readonly<Record<string, Granularity | "raw">> = {
  key_verifications_v1: "raw",
  key_verifications_per_minute_v1: "minute",
  key_verifications_per_hour_v1: "hour",
  key_verifications_per_day_v1: "day",
  key_verifications_per_month_v1: "month",
};

/** Columns a query may group by or filter on, by their Unkey names. */
export type Dimension = "outcome" | "key_id" | "key_space_id" | "identity_id" | "external_id" | "tag";

/** Calendar units of the `toStartOf...` functions; week starts on Sunday (ClickHouse's default mode 0). */
export type TimeUnit = "minute" | "hour" | "day" | "week" | "month" | "year";

/** What one result row is grouped by: a column's value, or the verification time floored to a unit. */
export type GroupKey = { kind: "dim"; dim: Dimension } | { kind: "time"; unit: TimeUnit };

/** An aggregate over the rows of a group: every verification, the credits spent, or those of some outcomes. */
export type Measure = { kind: "total" } | { kind: "credits" } | { kind: "outcomes"; outcomes: readonly string[] };

/** A value of a result row: literals, a group key's value, a measure, and arithmetic over them. */
export type ValueExpr =
  | { kind: "number"; value: number }
  | { kind: "string"; value: string }
  | { kind: "key"; index: number }
  | { kind: "measure"; measure: Measure }
  | { kind: "arith"; op: "+" | "-" | "*" | "/"; left: ValueExpr; right: ValueExpr }
  | { kind: "math"; fn: "round" | "floor" | "ceil" | "abs"; args: ValueExpr[] };

/** Filters on the verification itself; an absent list is no filter, an empty one matches nothing. */
export interface SqlFilters {
  outcomes?: string[];
  apiIds?: string[];
  keyIds?: string[];
  identityIds?: string[];
  externalIds?: string[];
  tags?: { values: string[]; match: "any" | "all" };
  /** Filters applied to grouped rows: `!=`, `NOT IN`, and comparisons with '' (keys without identity...). */
  rowFilters: { dim: Dimension; op: "in" | "not_in"; values: string[] }[];
}

export interface SqlPlan {
  table: string;
  /** Bounds of the verification times counted, unix ms: [start, end); absent when the WHERE sets none. */
  start?: number;
  end?: number;
  filters: SqlFilters;
  keys: GroupKey[];
  columns: { name: string; value: ValueExpr }[];
  order: { value: ValueExpr; desc: boolean }[];
  limit?: number;
}

/** A 400 naming the SQL construct at fault; the location is the request's `query` field. */
export function refuse(detail: string): Error {
  return invalid(detail, [{ location: "query", message: detail }]);
}
