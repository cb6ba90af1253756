import { refuse } from "./sql-plan.js";

/**
 * Readers over node-sql-parser's AST (BigQuery grammar: the one of its dialects that reads ClickHouse's array
 * literals `['a', 'b']`). The AST is untyped JSON; these keep the shape knowledge in one place.
 */
export type Node = Record<string, any>;

/** A function's name as written (`toStartOfDay`, `COUNT`), whichever node shape the grammar produced. */
export function functionName(node: Node): string {
  if (node.type === "aggr_func") return String(node.name);
  const name = node.name;
  if (typeof name === "string") return name;
  const parts: string[] = (name?.name ?? []).map((part: Node) => String(part.value));
  if (name?.schema?.value) parts.unshift(String(name.schema.value));
  return parts.join(".");
}

/** A function's arguments; `count(*)` has the star node as its only argument. */
export function functionArgs(node: Node): Node[] {
  if (node.type === "aggr_func") {
    if (node.args?.distinct) throw refuse(`DISTINCT inside ${functionName(node)}() is not supported.`);
    return node.args?.expr ? [node.args.expr] : [];
  }
  return node.args?.value ?? (node.args ? [node.args] : []);
}

/** The column a reference names, lower-cased; a qualified reference (`t.key_id`) keeps only the column. */
export function columnName(node: Node): string | undefined {
  if (node.type !== "column_ref") return undefined;
  const column = node.column;
  const name = typeof column === "string" ? column : column?.expr?.value;
  return typeof name === "string" ? name.toLowerCase() : undefined;
}

/** A string literal's text, or undefined. */
export function stringValue(node: Node): string | undefined {
  return ["single_quote_string", "string", "double_quote_string"].includes(node.type) ? String(node.value) : undefined;
}

/** A list of literals: `('a', 'b')`, `['a', 'b']`, or one literal. */
export function stringList(node: Node, what: string): string[] {
  const items: Node[] = node.type === "expr_list" ? node.value
    : node.type === "array" ? (node.array_path ?? node.expr_list?.value ?? []).map((item: Node) => item.expr ?? item)
    : [node];
  return items.map((item) => {
    const value = stringValue(item);
    if (value === undefined) throw refuse(`${what} takes string literals only.`);
    return value;
  });
}

/** A short text of a node for error messages: the construct's kind and name. */
export function describe(node: Node): string {
  if (node.type === "function" || node.type === "aggr_func") return `the function ${functionName(node)}()`;
  if (node.type === "column_ref") return `the column ${columnName(node)}`;
  if (node.type === "select" || node.ast) return "a subquery";
  if (node.type === "binary_expr") return `the operator ${node.operator}`;
  if (node.type === "case") return "CASE";
  return `the expression ${node.type}`;
}

/** Throws when a node holds a subquery anywhere below it (the grammar nests them as `ast` or `type: select`). */
export function refuseSubqueries(node: unknown): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) return node.forEach(refuseSubqueries);
  const record = node as Node;
  if (record.type === "select" || (record.ast && typeof record.ast === "object")) {
    throw refuse("Subqueries are not supported; query one of the public tables directly.");
  }
  for (const [key, value] of Object.entries(record)) if (key !== "loc") refuseSubqueries(value);
}
