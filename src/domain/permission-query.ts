/**
 * Permission queries (DESIGN.md §3 "Permissions"): the v2 string form (`a AND (b OR c)`), the v1 JSON form
 * (`{and:[...]}` / `{or:[...]}`), and their evaluation against a granted set by exact string equality.
 */

export type PermissionQuery = { permission: string } | { and: PermissionQuery[] } | { or: PermissionQuery[] };

/** A v2 syntax error; `position` is a 0-based offset into the text (text.length for "end of input"). */
export interface QuerySyntaxError {
  position: number;
  message: string;
}

export const MAX_QUERY_LENGTH = 1000;
/** Deeper nesting is refused so that recursion can never exhaust the stack. */
export const MAX_QUERY_DEPTH = 100;

const NAME_CHAR = /[a-zA-Z0-9_:\-.*]/;
const WHITESPACE = /\s/;

interface Token {
  kind: "name" | "and" | "or" | "(" | ")" | "end";
  text: string;
  position: number;
}

class SyntaxFailure extends Error {
  constructor(readonly position: number, message: string) {
    super(message);
  }
}

/** `message` reads "... at position N ..." with the same N as `position`. */
function fail(position: number, message: string): never {
  throw new SyntaxFailure(position, message);
}

/** How a token reads in a message: keywords upper-case, names quoted, end of input spelled out. */
function describe(token: Token): string {
  if (token.kind === "end") return "the end of the query";
  if (token.kind === "and" || token.kind === "or") return token.kind.toUpperCase();
  return `"${token.text}"`;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (WHITESPACE.test(char)) {
      i++;
    } else if (char === "(" || char === ")") {
      tokens.push({ kind: char, text: char, position: i++ });
    } else if (NAME_CHAR.test(char)) {
      const start = i;
      while (i < text.length && NAME_CHAR.test(text[i])) i++;
      const word = text.slice(start, i);
      const lower = word.toLowerCase();
      // Keywords are whole tokens only: `android` or `AND-x` are names.
      const kind = lower === "and" || lower === "or" ? lower : "name";
      tokens.push({ kind, text: word, position: start });
    } else {
      const shown = text.codePointAt(i)!;
      fail(i, `unexpected character ${JSON.stringify(String.fromCodePoint(shown))} at position ${i}` +
        " (names may contain letters, digits and _ : - . *)");
    }
  }
  tokens.push({ kind: "end", text: "", position: text.length });
  return tokens;
}

/** Recursive descent: or := and (OR and)* ; and := operand (AND operand)* ; operand := name | "(" or ")". */
function parseTokens(tokens: Token[]): PermissionQuery {
  let index = 0;
  const peek = () => tokens[index];

  function parseOr(depth: number): PermissionQuery {
    const items = [parseAnd(depth)];
    while (peek().kind === "or") {
      index++;
      items.push(parseAnd(depth));
    }
    return items.length === 1 ? items[0] : { or: items };
  }

  function parseAnd(depth: number): PermissionQuery {
    const items = [parseOperand(depth, tokens[index - 1])];
    while (peek().kind === "and") {
      index++;
      items.push(parseOperand(depth, tokens[index - 1]));
    }
    return items.length === 1 ? items[0] : { and: items };
  }

  function parseOperand(depth: number, previous: Token | undefined): PermissionQuery {
    const token = tokens[index++];
    if (token.kind === "name") return { permission: token.text };
    if (token.kind === "(") {
      const at = token.position;
      if (depth >= MAX_QUERY_DEPTH) fail(at, `parentheses nested deeper than ${MAX_QUERY_DEPTH} levels at position ${at}`);
      if (peek().kind === ")") fail(at, `empty parentheses at position ${at}`);
      const inner = parseOr(depth + 1);
      const close = peek();
      if (close.kind === "end") fail(at, `the "(" at position ${at} is never closed`);
      expectOperatorOrEnd(close, ")");
      index++;
      return inner;
    }
    const after = previous ? ` after ${describe(previous)}` : "";
    const hint = token.kind === "and" || token.kind === "or" ? " (AND and OR are operators, not names)" : "";
    return fail(token.position,
      `expected a permission name${after} at position ${token.position}, found ${describe(token)}${hint}`);
  }

  /** After a complete operand only an operator, `closing` or the end may follow. */
  function expectOperatorOrEnd(token: Token, closing: "end" | ")"): void {
    if (token.kind === closing || token.kind === "and" || token.kind === "or") return;
    const at = token.position;
    if (token.kind === ")") fail(at, `unmatched ")" at position ${at}`);
    const previous = tokens[index - 1];
    const between = previous.kind === "name" ? `between ${describe(previous)} and` : "before";
    fail(at, `expected AND or OR ${between} ${describe(token)} at position ${at}`);
  }

  const query = parseOr(0);
  expectOperatorOrEnd(peek(), "end");
  return query;
}

/**
 * Parses the v2 string form: names joined by AND / OR (case-insensitive keywords, AND binds tighter) and
 * parentheses, at most 1000 characters. Never throws; a syntax error names its 0-based position.
 */
export function parsePermissionQuery(text: string): { query: PermissionQuery } | { error: QuerySyntaxError } {
  if (text.length > MAX_QUERY_LENGTH) {
    return { error: { position: MAX_QUERY_LENGTH, message: `the query is longer than ${MAX_QUERY_LENGTH} characters (${text.length}): it must end before position ${MAX_QUERY_LENGTH}` } };
  }
  if (text.trim() === "") return { error: { position: 0, message: "the query is empty: a permission name is expected at position 0" } };
  try {
    return { query: parseTokens(tokenize(text)) };
  } catch (error) {
    if (error instanceof SyntaxFailure) return { error: { position: error.position, message: error.message } };
    // Anything else is a bug in this parser; still answer with a result rather than throw.
    return { error: { position: 0, message: "the query could not be parsed" } };
  }
}

const V1_SHAPE = 'expected a permission name or an object with exactly one of "and" / "or"';

/**
 * Reads the v1 JSON form: `string | {and:[q...]} | {or:[q...]}`, nested. Errors carry a JSON path relative to
 * the query (`""` for the query itself, `.and[1].or[0]` below it); empty lists and nesting past 100 are errors.
 */
export function permissionQueryFromV1(value: unknown): { query: PermissionQuery } | { error: { path: string; message: string } } {
  function read(node: unknown, path: string, depth: number): PermissionQuery | { path: string; message: string } {
    if (typeof node === "string") {
      return node === "" ? { path, message: "a permission name must not be empty" } : { permission: node };
    }
    if (typeof node !== "object" || node === null || Array.isArray(node)) return { path, message: V1_SHAPE };
    const keys = Object.keys(node);
    if (keys.length !== 1 || (keys[0] !== "and" && keys[0] !== "or")) return { path, message: V1_SHAPE };
    const operator = keys[0];
    const listPath = `${path}.${operator}`;
    const list = (node as Record<string, unknown>)[operator];
    if (!Array.isArray(list)) return { path: listPath, message: `"${operator}" must be a list of queries` };
    if (list.length === 0) return { path: listPath, message: `"${operator}" must not be empty` };
    if (depth >= MAX_QUERY_DEPTH) return { path, message: `the query is nested deeper than ${MAX_QUERY_DEPTH} levels` };
    const items: PermissionQuery[] = [];
    for (let i = 0; i < list.length; i++) {
      const item = read(list[i], `${listPath}[${i}]`, depth + 1);
      if ("message" in item) return item;
      items.push(item);
    }
    return operator === "and" ? { and: items } : { or: items };
  }
  const result = read(value, "", 0);
  return "message" in result ? { error: result } : { query: result };
}

/** True when `granted` satisfies the query; a name matches only itself (`*` is literal, never a glob). */
export function evaluatePermissionQuery(query: PermissionQuery, granted: ReadonlySet<string>): boolean {
  if ("permission" in query) return granted.has(query.permission);
  if ("and" in query) return query.and.every((item) => evaluatePermissionQuery(item, granted));
  return query.or.some((item) => evaluatePermissionQuery(item, granted));
}

/** Every permission name the query mentions, each once, in order of first mention. */
export function permissionNamesOf(query: PermissionQuery): string[] {
  const names = new Set<string>();
  const visit = (node: PermissionQuery): void => {
    if ("permission" in node) names.add(node.permission);
    else ("and" in node ? node.and : node.or).forEach(visit);
  };
  visit(query);
  return [...names];
}
