import type { AnalyticsRow } from "../analytics-row.js";
import { floorTo } from "./sql-time.js";
import { MAX_SQL_ROWS } from "./parse-analytics-sql.js";
import type { Dimension, Measure, SqlPlan, ValueExpr } from "./sql-plan.js";

export type SqlValue = number | string | null;

interface Group {
  keys: SqlValue[];
  total: number;
  credits: number;
  outcomes: Record<string, number>;
}

/** The engine's grouping dimension that carries each SQL column (external ids are looked up from identities). */
export const ENGINE_DIMENSION = {
  outcome: "outcome", key_id: "key", key_space_id: "api", identity_id: "identity", external_id: "identity", tag: "tag",
} as const;

/**
 * The result rows of a plan from the engine's rows: row filters applied, rows folded into the query's groups
 * (coarser time units, external ids), each column evaluated, ordered (ties by group keys) and limited (at most MAX_SQL_ROWS). A query
 * without GROUP BY answers exactly one row, zeros included, as ClickHouse does.
 */
export function sqlRows(plan: SqlPlan, rows: readonly AnalyticsRow[], externalIdOf: (identityId: string) => string | undefined) {
  const dimValue = (row: AnalyticsRow, dim: Dimension): string => {
    switch (dim) {
      case "outcome": return row.outcome ?? "";
      case "key_id": return row.keyId ?? "";
      case "key_space_id": return row.apiId ?? "";
      case "identity_id": return row.identityId ?? "";
      case "external_id": return row.identityId ? (externalIdOf(row.identityId) ?? "") : "";
      case "tag": return row.tag ?? "";
    }
  };
  const groups = new Map<string, Group>();
  for (const row of rows) {
    if (!plan.filters.rowFilters.every((f) => f.values.includes(dimValue(row, f.dim)) === (f.op === "in"))) continue;
    const keys = plan.keys.map((key) => (key.kind === "dim" ? dimValue(row, key.dim) : floorTo(row.time, key.unit)));
    const id = JSON.stringify(keys);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { keys, total: 0, credits: 0, outcomes: {} }));
    group.total += row.total;
    group.credits += row.creditsSpent;
    for (const [outcome, n] of Object.entries(row.outcomes)) group.outcomes[outcome] = (group.outcomes[outcome] ?? 0) + n;
  }
  if (plan.keys.length === 0 && groups.size === 0) groups.set("[]", { keys: [], total: 0, credits: 0, outcomes: {} });

  const evaluated = [...groups.values()].map((group) => ({
    row: Object.fromEntries(plan.columns.map((column) => [column.name, evaluate(column.value, group)])),
    order: plan.order.map((o) => evaluate(o.value, group)),
    keys: group.keys,
  }));
  evaluated.sort((a, b) => {
    for (let i = 0; i < plan.order.length; i++) {
      const c = compare(a.order[i], b.order[i]);
      if (c !== 0) return plan.order[i].desc ? -c : c;
    }
    // Ties (and a query without ORDER BY) follow the group keys ascending, so an answer is the same every time.
    for (let i = 0; i < a.keys.length; i++) {
      const c = compare(a.keys[i], b.keys[i]);
      if (c !== 0) return c;
    }
    return 0;
  });
  return evaluated.slice(0, Math.min(plan.limit ?? MAX_SQL_ROWS, MAX_SQL_ROWS)).map((e) => e.row);
}

function measure(m: Measure, group: Group): number {
  if (m.kind === "total") return group.total;
  if (m.kind === "credits") return group.credits;
  return m.outcomes.reduce((sum, outcome) => sum + (group.outcomes[outcome] ?? 0), 0);
}

function evaluate(value: ValueExpr, group: Group): SqlValue {
  switch (value.kind) {
    case "number":
    case "string":
      return value.value;
    case "key":
      return group.keys[value.index];
    case "measure":
      return measure(value.measure, group);
    case "arith": {
      const left = evaluate(value.left, group);
      const right = evaluate(value.right, group);
      if (typeof left !== "number" || typeof right !== "number") return null;
      const n = value.op === "+" ? left + right : value.op === "-" ? left - right : value.op === "*" ? left * right : left / right;
      return Number.isFinite(n) ? n : null; // a division by zero answers null, not NaN (JSON has no NaN)
    }
    case "math": {
      const [x, digits] = value.args.map((arg) => evaluate(arg, group));
      if (typeof x !== "number") return null;
      const scale = 10 ** (typeof digits === "number" ? digits : 0);
      if (value.fn === "abs") return Math.abs(x);
      const fn = value.fn === "round" ? Math.round : value.fn === "floor" ? Math.floor : Math.ceil;
      return fn(x * scale) / scale;
    }
  }
}

function compare(a: SqlValue, b: SqlValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a) < String(b) ? -1 : 1;
}
