import type { Granularity } from "../time-buckets.js";
import { columnName, functionArgs, functionName, type Node } from "./sql-ast.js";
import { parseSelect } from "./sql-statement.js";
import { refuse, SQL_TABLES, type SqlPlan, type ValueExpr } from "./sql-plan.js";
import { createExpressionTranslator } from "./sql-select.js";
import { translateWhere } from "./sql-where.js";

/** Most rows one SQL query answers, whatever its LIMIT says. */
export const MAX_SQL_ROWS = 10_000;

/**
 * Parses one Unkey-dialect analytics query (node-sql-parser's BigQuery grammar reads ClickHouse's array literals)
 * and translates it into a plan for the structured event engine. Supported: one SELECT from one of Unkey's public
 * tables; count()/countIf()/sum(count)/sumIf()/sum(CASE ...)/sum(spent_credits) with round/floor/ceil/abs and
 * arithmetic; the time functions; a WHERE of AND-ed predicates on time, outcome, ids and tags; GROUP BY; ORDER BY;
 * LIMIT. Anything else throws a 400 (`invalid`) naming the construct. `now` is the clock's instant.
 */
export function parseAnalyticsSql(sql: string, options: { now: number }): SqlPlan {
  return translateSelect(parseSelect(sql), options);
}

/** Translates a parsed SELECT (parseSelect) over the verification tables into a plan; see parseAnalyticsSql. */
export function translateSelect(ast: Node, options: { now: number }): SqlPlan {
  const table = tableOf(ast.from);

  const granularity = SQL_TABLES[table] as Granularity | "raw";
  const { filters, bounds } = translateWhere(ast.where ?? null, { now: options.now, table: granularity });
  const translator = createExpressionTranslator(granularity);

  if (ast.columns === "*" || (Array.isArray(ast.columns) && ast.columns.some((c: Node) => c.expr?.type === "star" || c.expr?.column === "*"))) {
    throw refuse("SELECT * is not supported: rows are aggregated; select count() or sum(count) and the columns you group by.");
  }
  const columns = (ast.columns as Node[]).map((column, i) => {
    const out = { name: column.as ? String(column.as) : columnLabel(column.expr, i), value: translator.value(column.expr) };
    translator.alias(out.name, out.value);
    return out;
  });
  const aliases = new Map(columns.map((column, i) => [column.name.toLowerCase(), { value: column.value, expr: (ast.columns as Node[])[i].expr }]));

  // GROUP BY items: an alias of the SELECT, a position, or an expression naming a group key.
  const grouped = new Set<number>();
  for (const item of (ast.groupby?.columns ?? ast.groupby ?? []) as Node[]) {
    const alias = columnName(item) !== undefined ? aliases.get(columnName(item)!) : undefined;
    const expr = alias?.expr ?? (item.type === "number" ? (ast.columns as Node[])[Number(item.value) - 1]?.expr : item);
    const key = expr ? translator.groupKey(expr) : undefined;
    if (!key) throw refuse("GROUP BY takes columns (outcome, key_id, ...), time, toStartOf...(time), arrayJoin(tags), their aliases or positions.");
    grouped.add(translator.keyIndex(key));
  }
  const keys = translator.keys;
  // Every key a SELECT or ORDER BY uses must be grouped; with no GROUP BY at all, a key makes the query row-level.
  const checkGrouped = (value: ValueExpr): void => {
    if (value.kind === "key" && !grouped.has(value.index)) {
      throw refuse(grouped.size === 0 && !hasMeasure(columns.map((c) => c.value))
        ? "Row-level queries are not supported: aggregate with count() or sum(count), grouping by the columns you select."
        : "Every column selected without an aggregate must be in GROUP BY.");
    }
    if (value.kind === "arith") (checkGrouped(value.left), checkGrouped(value.right));
    if (value.kind === "math") value.args.forEach(checkGrouped);
  };
  columns.forEach((column) => checkGrouped(column.value));

  const order = ((ast.orderby ?? []) as Node[]).map((item) => {
    const expr = item.expr as Node;
    const alias = columnName(expr) !== undefined ? aliases.get(columnName(expr)!) : undefined;
    const value = alias?.value ?? (expr.type === "number" ? columns[Number(expr.value) - 1]?.value : translator.value(expr));
    if (!value) throw refuse(`ORDER BY ${expr.value} names no selected column.`);
    checkGrouped(value);
    return { value, desc: String(item.type ?? "ASC").toUpperCase() === "DESC" };
  });

  return { table, ...bounds, filters, keys: [...keys], columns, order, limit: limitOf(ast.limit) };
}

function tableOf(from: Node[] | null | undefined): string {
  if (!from || from.length === 0) throw refuse("FROM is required: one of " + Object.keys(SQL_TABLES).join(", ") + ".");
  if (from.length > 1 || from.some((f) => f.join)) throw refuse("JOIN is not supported; query one table.");
  const source = from[0];
  if (source.expr) throw refuse("Subqueries are not supported; query one of the public tables directly.");
  const name = [source.db, source.table].filter(Boolean).join(".");
  if (source.db || !(String(source.table) in SQL_TABLES)) {
    throw refuse(`The table ${name} is not queryable; use one of ${Object.keys(SQL_TABLES).join(", ")}.`);
  }
  return String(source.table);
}

function limitOf(limit: Node | null | undefined): number | undefined {
  const values = (limit?.value ?? []) as Node[];
  if (values.length === 0) return undefined;
  if (values.length > 1 || limit?.seperator) throw refuse("OFFSET is not supported; LIMIT takes one number.");
  const n = Number(values[0].value);
  if (values[0].type !== "number" || !Number.isInteger(n) || n < 0) throw refuse("LIMIT takes a whole number.");
  return Math.min(n, MAX_SQL_ROWS);
}

/**
 * ClickHouse names an unaliased column by its text: a plain column keeps its name, `COUNT(*)` is `count()`, and
 * `SUM(count)` `sum(count)`; anything longer is named by its position (`column_2`), so give it an alias.
 */
export function columnLabel(expr: Node, index: number): string {
  const column = columnName(expr);
  if (column !== undefined) return column;
  if (expr.type === "aggr_func" || expr.type === "function") {
    const name = functionName(expr).toLowerCase();
    const args = functionArgs(expr);
    if (args.length === 0 || (args.length === 1 && args[0].type === "star")) return `${name}()`;
    if (args.length === 1 && columnName(args[0]) !== undefined) return `${name}(${columnName(args[0])})`;
  }
  return `column_${index + 1}`;
}

function hasMeasure(values: ValueExpr[]): boolean {
  return values.some((v) => v.kind === "measure" || (v.kind === "arith" && hasMeasure([v.left, v.right])) || (v.kind === "math" && hasMeasure(v.args)));
}
