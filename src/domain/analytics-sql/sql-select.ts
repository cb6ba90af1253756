import { columnName, describe, functionArgs, functionName, stringList, stringValue, type Node } from "./sql-ast.js";
import { coarser, START_OF } from "./sql-time.js";
import { refuse, type Dimension, type GroupKey, type Measure, type ValueExpr } from "./sql-plan.js";
import type { Granularity } from "../time-buckets.js";

const DIMENSIONS: Record<string, Dimension> = {
  outcome: "outcome", key_id: "key_id", key_space_id: "key_space_id", identity_id: "identity_id", external_id: "external_id",
};
const MATH = new Set(["round", "floor", "ceil", "abs"]);

/**
 * Translates SELECT, GROUP BY and ORDER BY expressions. Non-aggregated expressions become group keys (collected in
 * `keys`, deduplicated); aggregates become measures over a group; arithmetic and round/floor/ceil/abs combine them.
 */
export function createExpressionTranslator(table: Granularity | "raw") {
  const keys: GroupKey[] = [];
  // Aliases of earlier SELECT columns, usable in later ones (`SUM(spent_credits) AS used, used * 0.001 AS cost`).
  const aliases = new Map<string, ValueExpr>();
  const keyIndex = (key: GroupKey): number => {
    const text = JSON.stringify(key);
    const found = keys.findIndex((k) => JSON.stringify(k) === text);
    if (found >= 0) return found;
    keys.push(key);
    return keys.length - 1;
  };

  /** The group key an expression denotes, or undefined when it is not one (an aggregate, a literal...). */
  function groupKey(node: Node): GroupKey | undefined {
    const column = columnName(node);
    if (column === "time") {
      if (table === "raw") {
        throw refuse("time of key_verifications_v1 is one verification's instant; group by toStartOfHour(toDateTime(time / 1000)) (or another toStartOf...), or query a per-interval table.");
      }
      return { kind: "time", unit: table };
    }
    if (column !== undefined) {
      const dim = DIMENSIONS[column];
      if (dim) return { kind: "dim", dim };
      if (["count", "spent_credits", "tags"].includes(column)) return undefined;
      throw refuse(`The column ${column} is not supported; the tables' columns here are time, outcome, key_id, key_space_id, identity_id, external_id, tags, count and spent_credits.`);
    }
    if (node.type !== "function") return undefined;
    const name = functionName(node).toLowerCase();
    const args = functionArgs(node);
    if (name === "arrayjoin" && args.length === 1 && columnName(args[0]) === "tags") return { kind: "dim", dim: "tag" };
    if (name in START_OF && args.length >= 1 && refersToTime(args[0])) {
      return { kind: "time", unit: table === "raw" ? START_OF[name] : coarser(START_OF[name], table) };
    }
    return undefined;
  }

  /** The expression as a value of a result row. */
  function value(node: Node): ValueExpr {
    if (node.type === "number") return { kind: "number", value: Number(node.value) };
    const text = stringValue(node);
    if (text !== undefined) return { kind: "string", value: text };
    const column = columnName(node);
    if (column !== undefined && column !== "time" && !DIMENSIONS[column] && aliases.has(column)) return aliases.get(column)!;
    const key = groupKey(node);
    if (key) return { kind: "key", index: keyIndex(key) };
    if (node.type === "binary_expr" && ["+", "-", "*", "/"].includes(node.operator)) {
      return { kind: "arith", op: node.operator, left: value(node.left), right: value(node.right) };
    }
    if (node.type === "aggr_func" || node.type === "function") {
      const name = functionName(node).toLowerCase();
      if (MATH.has(name)) return { kind: "math", fn: name as "round", args: functionArgs(node).map(value) };
      const measure = aggregate(name, functionArgs(node), node);
      if (measure) return { kind: "measure", measure };
    }
    if (columnName(node) !== undefined) throw refuse(`${describe(node)} must be aggregated here, e.g. sum(${columnName(node)}).`);
    throw refuse(`${describe(node)} is not supported.`);
  }

  function aggregate(name: string, args: Node[], node: Node): Measure | undefined {
    if (name === "count") {
      if (table !== "raw") throw refuse(`count() on key_verifications_per_${table}_v1 counts its aggregated rows, not verifications; use sum(count).`);
      return { kind: "total" };
    }
    if (name === "countif") {
      if (table !== "raw") throw refuse(`countIf() on key_verifications_per_${table}_v1 counts aggregated rows; use sumIf(count, ...).`);
      return { kind: "outcomes", outcomes: outcomeCondition(args[0]) };
    }
    if (name === "sum") return summed(args[0], undefined);
    if (name === "sumif") return summed(args[0], outcomeCondition(args[1]));
    if (["count", "sum", "sumif", "countif"].includes(name)) return undefined;
    throw refuse(`${describe(node)} is not supported; aggregates here are count(), countIf(), sum() and sumIf().`);
  }

  /** sum(count), sum(spent_credits), and sum(CASE WHEN outcome ... THEN count ELSE 0 END). */
  function summed(arg: Node | undefined, outcomes: string[] | undefined): Measure {
    if (!arg) throw refuse("sum() needs a column.");
    if (arg.type === "case") {
      const [when, otherwise] = arg.args as Node[];
      const zero = !otherwise || (otherwise.type === "else" && Number(otherwise.result?.value) === 0 && otherwise.result?.type === "number");
      if (arg.args.length > 2 || when?.type !== "when" || !zero || arg.expr) {
        throw refuse("CASE inside sum() is supported as CASE WHEN outcome = '...' THEN count ELSE 0 END.");
      }
      const inner = summed(when.result, outcomeCondition(when.cond));
      return outcomes ? { kind: "outcomes", outcomes: (inner as { outcomes: readonly string[] }).outcomes.filter((o) => outcomes.includes(o)) } : inner;
    }
    const column = columnName(arg);
    const counting = (table === "raw" && arg.type === "number" && Number(arg.value) === 1) || (table !== "raw" && column === "count");
    if (counting) return outcomes ? { kind: "outcomes", outcomes } : { kind: "total" };
    if (column === "spent_credits" && !outcomes) return { kind: "credits" };
    if (table === "raw" && column === "count") throw refuse("key_verifications_v1 has no count column (one row per verification); use count().");
    throw refuse(`sum over ${describe(arg)} is not supported; sum count, spent_credits, or CASE WHEN outcome = '...' THEN count ELSE 0 END.`);
  }

  const alias = (name: string, expr: ValueExpr) => void aliases.set(name.toLowerCase(), expr);
  return { keys, value, groupKey, keyIndex, alias };
}

/** `outcome = 'X'` / `outcome IN (...)`: the outcomes a conditional aggregate counts. */
function outcomeCondition(node: Node | undefined): string[] {
  if (node?.type === "binary_expr" && columnName(node.left) === "outcome") {
    if (node.operator === "=" || node.operator === "==") return stringList(node.right, "outcome =");
    if (node.operator === "IN") return stringList(node.right, "outcome IN");
  }
  throw refuse("A conditional aggregate is supported on outcome = '...' or outcome IN (...) only.");
}

/** Whether an expression is the time column, possibly converted (toDateTime(time / 1000), fromUnixTimestamp64Milli). */
function refersToTime(node: Node): boolean {
  if (columnName(node) === "time") return true;
  if (node.type === "binary_expr" && node.operator === "/") return refersToTime(node.left);
  if (node.type === "function") {
    const name = functionName(node).toLowerCase();
    const args = functionArgs(node);
    return ["todatetime", "todatetime64", "fromunixtimestamp64milli"].includes(name) && args.length >= 1 && refersToTime(args[0]);
  }
  return false;
}
