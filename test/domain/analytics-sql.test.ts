import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import { parseAnalyticsSql } from "../../src/domain/analytics-sql/parse-analytics-sql.js";
import type { AnalyticsRow } from "../../src/domain/analytics-row.js";
import { sqlRows } from "../../src/domain/analytics-sql/sql-rows.js";
import { floorTo, shift } from "../../src/domain/analytics-sql/sql-time.js";

const NOW = Date.UTC(2030, 2, 15, 10, 30); // Friday 15 March 2030, 10:30 UTC
const HOUR = 3_600_000;
const DAY = 86_400_000;
const plan = (sql: string) => parseAnalyticsSql(sql, { now: NOW });

describe("parseAnalyticsSql", () => {
  it("bounds the raw table's time exactly, and an aggregated table's by the buckets that start inside", () => {
    expect(plan("SELECT count() FROM key_verifications_v1 WHERE time >= now() - INTERVAL 1 HOUR")).toMatchObject({ start: NOW - HOUR });
    expect(plan("SELECT count() FROM key_verifications_v1 WHERE time > 100 AND time <= 200")).toMatchObject({ start: 101, end: 201 });
    // Day buckets starting at or after 10:30 seven days ago: from the next midnight.
    expect(plan("SELECT sum(count) FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 7 DAY").start).toBe(Date.UTC(2030, 2, 9));
    expect(plan("SELECT sum(count) FROM key_verifications_per_hour_v1 WHERE time >= toStartOfDay(now())").start).toBe(Date.UTC(2030, 2, 15));
    expect(plan("SELECT count() FROM key_verifications_v1 WHERE time >= toUnixTimestamp(toStartOfMonth(now())) * 1000").start).toBe(Date.UTC(2030, 2, 1));
    expect(plan("SELECT count() FROM key_verifications_v1 WHERE time BETWEEN 10 AND 20 AND time < 15")).toMatchObject({ start: 10, end: 15 });
  });

  it("translates filters: pushed-down ids, outcome sets, tags, and row filters for != and ''", () => {
    const { filters } = plan(
      "SELECT count() FROM key_verifications_v1 WHERE key_id IN ('k1', 'k2') AND key_id = 'k2' AND outcome NOT IN ('VALID', 'EXPIRED') AND external_id != '' AND hasAll(tags, ['a', 'b'])",
    );
    expect(filters).toEqual({
      keyIds: ["k2"],
      outcomes: ["RATE_LIMITED", "USAGE_EXCEEDED", "DISABLED", "FORBIDDEN", "INSUFFICIENT_PERMISSIONS"],
      tags: { values: ["a", "b"], match: "all" },
      rowFilters: [{ dim: "external_id", op: "not_in", values: [""] }],
    });
    expect(plan("SELECT count() FROM key_verifications_v1 WHERE outcome = 'INVALID'").filters.outcomes).toEqual([]);
  });

  it("names unaliased columns as ClickHouse does for the simple cases, else by position", () => {
    const p = plan("SELECT outcome, COUNT(*), count(), SUM(spent_credits), countIf(outcome = 'VALID') FROM key_verifications_v1 GROUP BY outcome");
    expect(p.columns.map((c) => c.name)).toEqual(["outcome", "count()", "count()", "sum(spent_credits)", "column_5"]);
  });

  it("reads group keys through aliases, positions and the time functions, coarsening to the table", () => {
    const p = plan("SELECT toStartOfMinute(time) AS m, key_space_id, sum(count) AS n FROM key_verifications_per_hour_v1 GROUP BY m, 2 ORDER BY n DESC, m LIMIT 50000");
    expect(p.keys).toEqual([{ kind: "time", unit: "hour" }, { kind: "dim", dim: "key_space_id" }]);
    expect(p.order.map((o) => o.desc)).toEqual([true, false]);
    expect(p.limit).toBe(10_000);
    expect(plan("SELECT toStartOfWeek(toDateTime(time / 1000)) AS w, count() FROM key_verifications_v1 GROUP BY w").keys).toEqual([{ kind: "time", unit: "week" }]);
  });

  it("refuses whatever it does not translate with an invalid error on `query`, never anything else", () => {
    const valid = "SELECT key_id, sumIf(count, outcome = 'VALID') AS v, round(SUM(count) / 3, 2) AS r FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 7 DAY AND hasAny(tags, ['x']) GROUP BY key_id ORDER BY v DESC LIMIT 5";
    const mutation = fc.tuple(fc.nat(valid.length), fc.nat(20), fc.string({ maxLength: 12 })).map(([at, cut, text]) => valid.slice(0, at) + text + valid.slice(at + cut));
    const words = fc.array(fc.constantFrom("SELECT", "FROM", "WHERE", "GROUP BY", "(", ")", "[", "]", ",", "count()", "time", "tags", "'a'", "1", "key_verifications_v1", "AND", "OR", "IN", "=", "-", "INTERVAL", "DAY", "now()", "*", "/", "toStartOfDay", "CASE", "WHEN", "THEN", "END"), { maxLength: 25 }).map((w) => w.join(" "));
    fc.assert(fc.property(fc.oneof(mutation, words, fc.string({ maxLength: 60 })), (sql) => {
      try {
        plan(sql);
      } catch (error) {
        expect(error).toBeInstanceOf(KeywardError);
        expect((error as KeywardError).kind).toBe("invalid");
        expect((error as KeywardError).violations[0].location).toBe("query");
      }
    }), { numRuns: 400, seed: 2112 });
  });
});

describe("sqlRows", () => {
  it("folds engine rows into the query's groups, evaluates arithmetic, orders with ties by group keys, and answers one row when ungrouped", () => {
    const rows: AnalyticsRow[] = [
      { time: Date.UTC(2030, 2, 11), keyId: "k1", total: 4, outcomes: { VALID: 3, RATE_LIMITED: 1 }, creditsSpent: 3 },
      { time: Date.UTC(2030, 2, 12), keyId: "k1", total: 2, outcomes: { VALID: 2 }, creditsSpent: 0 },
      { time: Date.UTC(2030, 2, 12), keyId: "k2", total: 6, outcomes: { VALID: 6 }, creditsSpent: 0 },
    ];
    const weekly = plan("SELECT key_id, toStartOfWeek(time) AS week, SUM(count) AS n, round(sumIf(count, outcome = 'VALID') / SUM(count) * 100, 1) AS pct FROM key_verifications_per_day_v1 GROUP BY key_id, week ORDER BY n");
    expect(sqlRows(weekly, rows, () => undefined)).toEqual([
      { key_id: "k1", week: Date.UTC(2030, 2, 10), n: 6, pct: 83.3 },
      { key_id: "k2", week: Date.UTC(2030, 2, 10), n: 6, pct: 100 },
    ]);
    expect(sqlRows(plan("SELECT SUM(count) AS n, SUM(spent_credits) / 0 AS x FROM key_verifications_per_day_v1"), [], () => undefined)).toEqual([{ n: 0, x: null }]);
  });
});

describe("analytics SQL time", () => {
  it("floors weeks to Sunday and shifts months along the calendar, clamped to the month's end", () => {
    expect(floorTo(NOW, "week")).toBe(Date.UTC(2030, 2, 10));
    expect(floorTo(NOW, "year")).toBe(Date.UTC(2030, 0, 1));
    expect(shift(Date.UTC(2030, 2, 31, 5), { ms: 0, months: 1 }, -1)).toBe(Date.UTC(2030, 1, 28, 5));
    expect(shift(NOW, { ms: DAY, months: 0 }, 1)).toBe(NOW + DAY);
  });
});
