import { ceilTo, evalTime } from "./sql-time.js";
import { columnName, describe, functionArgs, functionName, stringList, stringValue, type Node } from "./sql-ast.js";
import { refuse, type Dimension, type SqlFilters, type SqlPlan } from "./sql-plan.js";
import type { Granularity } from "../time-buckets.js";

const COUNTED = ["VALID", "RATE_LIMITED", "USAGE_EXCEEDED", "DISABLED", "EXPIRED", "FORBIDDEN", "INSUFFICIENT_PERMISSIONS"];
const FILTER_COLUMNS: Record<string, Dimension> = {
  outcome: "outcome", key_id: "key_id", key_space_id: "key_space_id", identity_id: "identity_id", external_id: "external_id",
};
const PUSHED = { key_id: "keyIds", key_space_id: "apiIds", identity_id: "identityIds", external_id: "externalIds" } as const;

/** A WHERE, translated: bounds on the verification time and filters; only a conjunction (AND) of predicates. */
export function translateWhere(where: Node | null, context: { now: number; table: Granularity | "raw" }) {
  const filters: SqlFilters = { rowFilters: [] };
  const bounds: Pick<SqlPlan, "start" | "end"> = {};
  const { table } = context;
  // Aggregated tables compare bucket starts: `time >= x` keeps the buckets starting at or after x.
  const align = (ms: number) => (table === "raw" ? ms : ceilTo(ms, table));
  const lower = (ms: number) => (bounds.start = Math.max(bounds.start ?? -Infinity, align(ms)));
  const upper = (ms: number) => (bounds.end = Math.min(bounds.end ?? Infinity, align(ms)));

  const time = (node: Node): number => {
    const value = evalTime(node, context.now);
    if (value.t === "interval") throw refuse("An interval alone is not a time; write now() - INTERVAL 7 DAY.");
    return value.t === "instant" ? value.ms : value.n;
  };

  const predicate = (node: Node): void => {
    if (node.type === "binary_expr" && node.operator === "AND") return (predicate(node.left), predicate(node.right));
    if (node.type === "binary_expr" && (node.operator === "OR" || node.operator === "XOR")) {
      throw refuse(`${node.operator} in WHERE is not supported; combine conditions with AND (IN lists one column's values).`);
    }
    if (node.type === "function") return tagPredicate(node);
    if (node.type !== "binary_expr") throw refuse(`${describe(node)} is not supported in WHERE.`);
    const column = columnName(node.left);
    if (column === "time") return timePredicate(node);
    const dim = column === undefined ? undefined : FILTER_COLUMNS[column];
    if (!dim) throw refuse(`WHERE on ${describe(node.left)} is not supported; filter on time, outcome, key_id, key_space_id, identity_id, external_id or tags.`);
    const op = node.operator as string;
    let values: string[];
    let include: boolean;
    if (op === "=" || op === "==" || op === "!=" || op === "<>") {
      const value = stringValue(node.right);
      if (value === undefined) throw refuse(`${column} ${op} takes a string literal.`);
      values = [value];
      include = op === "=" || op === "==";
    } else if (op === "IN" || op === "NOT IN") {
      values = stringList(node.right, `${column} ${op}`);
      include = op === "IN";
    } else {
      throw refuse(`The operator ${op} on ${column} is not supported; use =, !=, IN or NOT IN.`);
    }
    if (dim === "outcome") {
      const allowed = new Set(include ? values : COUNTED.filter((o) => !values.includes(o)));
      filters.outcomes = (filters.outcomes ?? COUNTED).filter((o) => allowed.has(o));
      return;
    }
    if (!include || values.includes("")) {
      filters.rowFilters.push({ dim, op: include ? "in" : "not_in", values });
      return;
    }
    const field = PUSHED[dim as keyof typeof PUSHED];
    const previous = filters[field];
    filters[field] = previous ? previous.filter((v) => values.includes(v)) : [...new Set(values)];
  };

  const timePredicate = (node: Node): void => {
    const op = node.operator as string;
    if (op === "BETWEEN") {
      const [low, high] = node.right.value as Node[];
      lower(time(low));
      upper(time(high) + 1);
      return;
    }
    const at = time(node.right);
    if (op === ">=") lower(at);
    else if (op === ">") lower(at + 1);
    else if (op === "<") upper(at);
    else if (op === "<=") upper(at + 1);
    else if (op === "=" || op === "==") (lower(at), upper(at + 1));
    else throw refuse(`The operator ${op} on time is not supported; use >=, >, <, <=, = or BETWEEN.`);
  };

  const tagPredicate = (node: Node): void => {
    const name = functionName(node).toLowerCase();
    const args = functionArgs(node);
    const match = name === "has" || name === "hasany" ? "any" : name === "hasall" ? "all" : undefined;
    if (!match || args.length !== 2 || columnName(args[0]) !== "tags") {
      throw refuse(`${describe(node)} is not supported in WHERE; tags are filtered with has(tags, 'x'), hasAny(tags, [...]) or hasAll(tags, [...]).`);
    }
    if (filters.tags) throw refuse("One tag condition per query: merge them into one hasAny or hasAll.");
    const values = stringList(args[1], `${functionName(node)}()`);
    if (values.length === 0) throw refuse(`${functionName(node)}() needs at least one tag.`);
    filters.tags = { values, match: name === "has" ? "any" : match };
  };

  if (where) predicate(where);
  return { filters, bounds };
}
