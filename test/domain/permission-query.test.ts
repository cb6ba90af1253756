import { describe, expect, it } from "vitest";
import {
  evaluatePermissionQuery, parsePermissionQuery, permissionNamesOf, permissionQueryFromV1, type PermissionQuery,
} from "../../src/domain/permission-query.js";

const p = (permission: string): PermissionQuery => ({ permission });

function parsed(text: string): PermissionQuery {
  const result = parsePermissionQuery(text);
  if ("error" in result) throw new Error(`unexpected syntax error: ${result.error.message}`);
  return result.query;
}

function syntaxError(text: string) {
  const result = parsePermissionQuery(text);
  if ("query" in result) throw new Error(`expected a syntax error for ${JSON.stringify(text)}`);
  return result.error;
}

describe("parsePermissionQuery", () => {
  it("reads a single name, with dots, colons, dashes, underscores and a literal *", () => {
    expect(parsed("documents.read")).toEqual(p("documents.read"));
    expect(parsed("  api.*.read_api\t")).toEqual(p("api.*.read_api"));
    expect(parsed("a:b-c_D.9*")).toEqual(p("a:b-c_D.9*"));
  });

  it("binds AND tighter than OR: a OR b AND c is a OR (b AND c)", () => {
    expect(parsed("a OR b AND c")).toEqual({ or: [p("a"), { and: [p("b"), p("c")] }] });
    expect(parsed("a AND b OR c")).toEqual({ or: [{ and: [p("a"), p("b")] }, p("c")] });
  });

  it("flattens chains of the same operator", () => {
    expect(parsed("a AND b AND c")).toEqual({ and: [p("a"), p("b"), p("c")] });
    expect(parsed("a OR b OR c")).toEqual({ or: [p("a"), p("b"), p("c")] });
  });

  it("lets parentheses override precedence and drops redundant ones", () => {
    expect(parsed("(a OR b) AND c")).toEqual({ and: [{ or: [p("a"), p("b")] }, p("c")] });
    expect(parsed("((a))")).toEqual(p("a"));
    expect(parsed("(a)AND(b)")).toEqual({ and: [p("a"), p("b")] });
    expect(parsed("a AND (b OR (c AND d))")).toEqual({ and: [p("a"), { or: [p("b"), { and: [p("c"), p("d")] }] }] });
  });

  it("accepts keywords in any case and any whitespace between tokens", () => {
    expect(parsed("a and b Or c")).toEqual({ or: [{ and: [p("a"), p("b")] }, p("c")] });
    expect(parsed("a\n aNd\t\tb")).toEqual({ and: [p("a"), p("b")] });
  });

  it("treats keywords only as whole tokens", () => {
    expect(parsed("android OR order")).toEqual({ or: [p("android"), p("order")] });
    expect(parsed("and.read AND or_write")).toEqual({ and: [p("and.read"), p("or_write")] });
  });

  it("keeps the case of names", () => {
    expect(parsed("Documents.Read")).toEqual(p("Documents.Read"));
  });

  describe("errors name the 0-based position of the offending token", () => {
    const cases: [string, number, string][] = [
      ["", 0, "the query is empty: a permission name is expected at position 0"],
      ["   ", 0, "the query is empty: a permission name is expected at position 0"],
      ["a AND", 5, "expected a permission name after AND at position 5, found the end of the query"],
      ["a OR ", 5, "expected a permission name after OR at position 5, found the end of the query"],
      ["a AND OR b", 6, "expected a permission name after AND at position 6, found OR (AND and OR are operators, not names)"],
      ["AND a", 0, "expected a permission name at position 0, found AND (AND and OR are operators, not names)"],
      ["and", 0, "expected a permission name at position 0, found AND (AND and OR are operators, not names)"],
      ["a AND )", 6, 'expected a permission name after AND at position 6, found ")"'],
      ["a b", 2, 'expected AND or OR between "a" and "b" at position 2'],
      ["(a b)", 3, 'expected AND or OR between "a" and "b" at position 3'],
      ["a (b)", 2, 'expected AND or OR between "a" and "(" at position 2'],
      ["(a) b", 4, 'expected AND or OR before "b" at position 4'],
      ["a ! b", 2, 'unexpected character "!" at position 2 (names may contain letters, digits and _ : - . *)'],
      ["a AND b😀", 7, 'unexpected character "😀" at position 7 (names may contain letters, digits and _ : - . *)'],
      ["a OR \"b\"", 5, 'unexpected character "\\"" at position 5 (names may contain letters, digits and _ : - . *)'],
      ["a AND (b OR c", 6, 'the "(" at position 6 is never closed'],
      ["(a", 0, 'the "(" at position 0 is never closed'],
      ["a OR b)", 6, 'unmatched ")" at position 6'],
      [")", 0, 'expected a permission name at position 0, found ")"'],
      ["()", 0, "empty parentheses at position 0"],
      ["a AND ( )", 6, "empty parentheses at position 6"],
    ];
    for (const [text, position, message] of cases) {
      it(`${JSON.stringify(text)} → position ${position}`, () => {
        expect(syntaxError(text)).toEqual({ position, message });
      });
    }
  });

  it("accepts exactly 1000 characters and refuses 1001", () => {
    const name = "x".repeat(1000);
    expect(parsed(name)).toEqual(p(name));
    expect(syntaxError(`${name}y`)).toEqual({ position: 1000, message: "the query is longer than 1000 characters (1001): it must end before position 1000" });
  });

  it("accepts 100 nested parentheses and refuses 101 at the innermost '('", () => {
    expect(parsed(`${"(".repeat(100)}a${")".repeat(100)}`)).toEqual(p("a"));
    expect(syntaxError(`${"(".repeat(101)}a${")".repeat(101)}`)).toEqual({
      position: 100, message: "parentheses nested deeper than 100 levels at position 100",
    });
  });
});

describe("permissionQueryFromV1", () => {
  it("reads a bare name", () => {
    expect(permissionQueryFromV1("documents.read")).toEqual({ query: p("documents.read") });
  });

  it("reads nested and/or objects", () => {
    const value = { and: ["a", { or: ["b", { and: ["c", "d"] }] }] };
    expect(permissionQueryFromV1(value)).toEqual({
      query: { and: [p("a"), { or: [p("b"), { and: [p("c"), p("d")] }] }] },
    });
  });

  it("keeps single-element lists", () => {
    expect(permissionQueryFromV1({ or: ["a"] })).toEqual({ query: { or: [p("a")] } });
  });

  const shape = 'expected a permission name or an object with exactly one of "and" / "or"';
  const invalid: [string, unknown, string, string][] = [
    ["an empty and list", { and: [] }, ".and", '"and" must not be empty'],
    ["an empty or list deep inside", { and: ["a", { or: [] }] }, ".and[1].or", '"or" must not be empty'],
    ["a list that is not an array", { or: "a" }, ".or", '"or" must be a list of queries'],
    ["an empty name", { and: ["a", ""] }, ".and[1]", "a permission name must not be empty"],
    ["a number", 42, "", shape],
    ["null inside a list", { or: ["a", null] }, ".or[1]", shape],
    ["an array at the top", ["a", "b"], "", shape],
    ["an unknown key", { not: ["a"] }, "", shape],
    ["both and and or", { and: ["a"], or: ["b"] }, "", shape],
    ["an extra key", { and: ["a"], extra: 1 }, "", shape],
    ["an empty object", {}, "", shape],
  ];
  for (const [what, value, path, message] of invalid) {
    it(`refuses ${what} with the JSON path ${JSON.stringify(path)}`, () => {
      expect(permissionQueryFromV1(value)).toEqual({ error: { path, message } });
    });
  }

  it("refuses nesting past 100 levels", () => {
    let value: unknown = "a";
    for (let i = 0; i < 101; i++) value = { and: [value] };
    const result = permissionQueryFromV1(value);
    expect(result).toEqual({
      error: { path: ".and[0]".repeat(100), message: "the query is nested deeper than 100 levels" },
    });
    let ok: unknown = "a";
    for (let i = 0; i < 100; i++) ok = { or: [ok] };
    expect("query" in permissionQueryFromV1(ok)).toBe(true);
  });
});

describe("evaluatePermissionQuery", () => {
  const roleA = ["p1", "p2", "p3"];
  const roleB = ["p1", "p4", "p5"];
  const both = new Set([...roleA, ...roleB]);
  const onlyA = new Set(roleA);
  const evaluate = (text: string, granted: ReadonlySet<string>) => evaluatePermissionQuery(parsed(text), granted);

  it("grants p1 AND p4 to the union of two roles but not to the first role alone", () => {
    expect(evaluate("p1 AND p4", both)).toBe(true);
    expect(evaluate("p1 AND p4", onlyA)).toBe(false);
  });

  it("refuses p2 AND p4 to the first role alone and grants it to the union", () => {
    expect(evaluate("p2 AND p4", onlyA)).toBe(false);
    expect(evaluate("p2 AND p4", both)).toBe(true);
  });

  it("grants an OR when any side holds", () => {
    expect(evaluate("p4 OR p3", onlyA)).toBe(true);
    expect(evaluate("p4 OR p5", onlyA)).toBe(false);
  });

  it("follows precedence: p9 OR p1 AND p2 holds for role A, (p9 OR p1) AND p4 does not", () => {
    expect(evaluate("p9 OR p1 AND p2", onlyA)).toBe(true);
    expect(evaluate("(p9 OR p1) AND p4", onlyA)).toBe(false);
    expect(evaluate("(p9 OR p1) AND p4", both)).toBe(true);
  });

  it("matches by exact string equality: * is literal, case matters", () => {
    const granted = new Set(["api.*.read_api", "documents.read"]);
    expect(evaluate("api.*.read_api", granted)).toBe(true);
    expect(evaluate("api.api_123.read_api", granted)).toBe(false);
    expect(evaluate("api.*.read_api", new Set(["api.api_123.read_api"]))).toBe(false);
    expect(evaluate("Documents.Read", granted)).toBe(false);
    expect(evaluate("documents.*", granted)).toBe(false);
  });

  it("evaluates v1 queries the same way", () => {
    const result = permissionQueryFromV1({ or: [{ and: ["p2", "p4"] }, "p5"] });
    if (!("query" in result)) throw new Error("expected a query");
    expect(evaluatePermissionQuery(result.query, onlyA)).toBe(false);
    expect(evaluatePermissionQuery(result.query, new Set(roleB))).toBe(true);
  });
});

describe("permissionNamesOf", () => {
  it("lists every name once, in order of first mention", () => {
    expect(permissionNamesOf(parsed("b AND (a OR b) AND c OR a"))).toEqual(["b", "a", "c"]);
    expect(permissionNamesOf(p("api.*.read_api"))).toEqual(["api.*.read_api"]);
  });
});
