import { columnLabel, translateSelect } from "./parse-analytics-sql.js";
import { columnName, functionArgs, functionName, type Node } from "./sql-ast.js";
import { refuse, type SqlPlan } from "./sql-plan.js";
import { parseSelect } from "./sql-statement.js";

/** Unkey's rate-limit tables, and the verification table of the same granularity whose engine answers them. */
export const RATELIMIT_TABLES: Readonly<Record<string, string>> = {
  ratelimits_v1: "key_verifications_v1",
  ratelimits_per_minute_v1: "key_verifications_per_minute_v1",
  ratelimits_per_hour_v1: "key_verifications_per_hour_v1",
  ratelimits_per_day_v1: "key_verifications_per_day_v1",
  ratelimits_per_month_v1: "key_verifications_per_month_v1",
};
const RENAMED: Record<string, string> = { namespace_id: "key_space_id", identifier: "key_id", time: "time" };
const RAW_COLUMNS: Record<string, string> = { ...RENAMED, tokens: "spent_credits" };
const AGGREGATED_COLUMNS: Record<string, string> = { ...RENAMED, total: "count", total_tokens: "spent_credits" };

const column = (name: string): Node => ({ type: "column_ref", table: null, column: { expr: { type: "default", value: name } } });
const outcomeIs = (passed: boolean): Node => ({
  type: "binary_expr", operator: "=", left: column("outcome"), right: { type: "single_quote_string", value: passed ? "VALID" : "RATE_LIMITED" },
});

/**
 * Unkey's SQL over the rate-limit tables (`ratelimits_v1`: one row per check with `passed` and `tokens`; the
 * per-interval tables with `total`, `passed` and `total_tokens` counts), translated by renaming onto the verification
 * tables' plan, since rate-limit events are kept in that engine (store/ratelimit-events.ts): namespace_id is the
 * api column, identifier the key column, passed the VALID outcome. Other columns are a 400 naming them.
 */
export function parseRatelimitSql(sql: string, options: { now: number }): SqlPlan {
  const ast = parseSelect(sql);
  const from = (ast.from ?? []) as Node[];
  const source = from[0];
  const name = source ? [source.db, source.table].filter(Boolean).join(".") : "";
  if (from.length === 1 && !source.join && !source.expr && !source.db && String(source.table) in RATELIMIT_TABLES) {
    const raw = source.table === "ratelimits_v1";
    const aliases = new Set<string>((ast.columns as Node[]).flatMap((c) => (c.as ? [String(c.as).toLowerCase()] : [])));
    const rewrite = createRewrite(raw, aliases, false);
    // GROUP BY and ORDER BY read an alias before a column of the same name (`SUM(total) AS total ... ORDER BY total`).
    const byAlias = createRewrite(raw, aliases, true);
    const columns = (ast.columns as Node[]).map((c, i) => {
      const label = c.as ? String(c.as) : columnLabel(c.expr, i);
      return { ...c, expr: rewrite(c.expr), as: label.startsWith("column_") ? c.as : label };
    });
    return translateSelect({
      ...ast, from: [{ ...source, table: RATELIMIT_TABLES[source.table] }], columns,
      where: rewrite(ast.where), groupby: byAlias(ast.groupby), orderby: byAlias(ast.orderby),
    }, options);
  }
  if (from.length !== 1 || source?.join) throw refuse("JOIN is not supported; query one table.");
  if (source?.expr) throw refuse("Subqueries are not supported; query one of the public tables directly.");
  throw refuse(`The table ${name} is not queryable here; use one of ${Object.keys(RATELIMIT_TABLES).join(", ")}.`);
}

function createRewrite(raw: boolean, aliases: Set<string>, aliasFirst: boolean) {
  const columns = raw ? RAW_COLUMNS : AGGREGATED_COLUMNS;
  const table = raw ? "ratelimits_v1" : "the per-interval rate-limit tables";
  const isPassed = (node: Node | undefined) => node !== undefined && columnName(node) === "passed";
  const truth = (node: Node): boolean | undefined =>
    node.type === "bool" || node.type === "boolean" ? Boolean(node.value) : node.type === "number" ? Number(node.value) !== 0 : undefined;

  const rewrite = (node: any): any => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== "object") return node;
    const name = columnName(node);
    if (name !== undefined) {
      if (aliasFirst && aliases.has(name)) return node;
      if (name === "passed") {
        if (raw) return outcomeIs(true);
        throw refuse("passed on the per-interval rate-limit tables is a count: use sum(passed).");
      }
      if (columns[name]) return column(columns[name]);
      if (aliases.has(name)) return node;
      throw refuse(`The column ${name} is not supported on ${table}; use ${[...Object.keys(columns), "passed"].join(", ")}.`);
    }
    if (raw && node.type === "binary_expr" && ["=", "==", "!=", "<>"].includes(node.operator) && isPassed(node.left)) {
      const value = truth(node.right);
      if (value === undefined) throw refuse("passed compares with true, false, 1 or 0.");
      return outcomeIs(node.operator === "=" || node.operator === "==" ? value : !value);
    }
    if (raw && node.type === "unary_expr" && String(node.operator).toUpperCase() === "NOT" && isPassed(node.expr)) return outcomeIs(false);
    if (!raw && (node.type === "aggr_func" || node.type === "function") && functionName(node).toLowerCase() === "sum" && isPassed(functionArgs(node)[0])) {
      return { type: "function", name: { name: [{ type: "default", value: "sumIf" }] }, args: { type: "expr_list", value: [column("count"), outcomeIs(true)] } };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === "loc" ? value : rewrite(value)]));
  };
  return rewrite;
}
