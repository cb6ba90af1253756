// The BigQuery grammar alone (208 KB): the package's main entry holds every dialect's (2.5 MB), and Node's scan of that
// CommonJS file for its exports cost every start-up some 50 ms of CPU, SQL or not.
import nodeSqlParser from "node-sql-parser/build/bigquery.js";
import { refuseSubqueries, type Node } from "./sql-ast.js";
import { refuse } from "./sql-plan.js";

const parser = new nodeSqlParser.Parser();

/**
 * Parses one SELECT with node-sql-parser (its BigQuery grammar reads ClickHouse's array literals `['a', 'b']`) and
 * refuses, naming it, every statement or clause the analytics tables do not answer: other statements (by their
 * keyword, before parsing, since the grammar does not read every dialect's DDL), several statements, WITH, UNION,
 * DISTINCT, HAVING, window functions and subqueries. Tables and expressions are checked by the translators.
 */
export function parseSelect(sql: string): Node {
  // Named before parsing: the grammar does not read every dialect's DDL, and "not valid SQL" would not name it.
  const keyword = /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*\(?\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
  if (keyword && keyword !== "SELECT" && keyword !== "WITH") throw refuse(`${keyword} statements are not allowed; only SELECT is.`);
  let parsed: Node | Node[];
  try {
    parsed = parser.astify(sql, { database: "bigquery" }) as Node | Node[];
  } catch (error) {
    const e = error as { message?: string; location?: { start?: { line: number; column: number; offset: number } } };
    const start = e.location?.start;
    // The text around the failure names the construct (`groupArray(DISTINCT ...`, `WITH FILL`).
    const near = start ? ` near "${sql.slice(Math.max(0, start.offset - 30), start.offset + 20).replace(/\s+/g, " ").trim()}"` : "";
    const at = start ? ` at line ${start.line}, column ${start.column}${near}` : "";
    throw refuse(`The query is not valid SQL, or uses syntax Keyward does not support${at ? `,${at}` : ""}.`);
  }
  const statements = Array.isArray(parsed) ? parsed : [parsed];
  if (statements.length !== 1) throw refuse("Send exactly one statement.");
  const ast = statements[0];
  if (ast.type !== "select") {
    throw refuse(`${String(ast.type).toUpperCase()} statements are not allowed; only SELECT is.`);
  }
  if (ast.with) throw refuse("WITH (common table expressions) is not supported.");
  if (ast._next || ast.set_op) throw refuse(`${String(ast.set_op ?? "UNION").toUpperCase()} is not supported; send one SELECT.`);
  if (ast.distinct) throw refuse("SELECT DISTINCT is not supported; use GROUP BY.");
  if (ast.having) throw refuse("HAVING is not supported.");
  if (ast.window || ast.qualify) throw refuse("Window functions are not supported.");
  refuseSubqueries([ast.columns, ast.where, ast.groupby, ast.orderby]);
  if (JSON.stringify(ast.columns ?? []).includes('"over":{')) throw refuse("Window functions (OVER) are not supported.");
  return ast;
}
