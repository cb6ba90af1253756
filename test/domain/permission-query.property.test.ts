import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  evaluatePermissionQuery, parsePermissionQuery, permissionNamesOf, type PermissionQuery,
} from "../../src/domain/permission-query.js";

const NAME = /^[a-zA-Z0-9_:\-.*]+$/;
const KEYWORD = /^(and|or)$/i;

/** The parser's whole contract for any input: a result, never a throw, and an in-range position. */
function checkParseResult(text: string): void {
  const result = parsePermissionQuery(text);
  if ("error" in result) {
    expect(Number.isInteger(result.error.position)).toBe(true);
    expect(result.error.position).toBeGreaterThanOrEqual(0);
    expect(result.error.position).toBeLessThanOrEqual(text.length);
    expect(result.error.message.length).toBeGreaterThan(0);
    // The message a 400 carries names the same position.
    expect(result.error.message).toContain(`position ${result.error.position}`);
    return;
  }
  for (const name of permissionNamesOf(result.query)) {
    expect(name).toMatch(NAME);
    expect(name).not.toMatch(KEYWORD);
  }
}

// Pieces that exercise the tokenizer and every parser branch when glued together at random.
const tokenPiece = fc.constantFrom(
  "a", "b", "p1", "api.*.read_api", "documents.read", "x:y-z", "*", "AND", "and", "Or", "OR", "oR",
  "android", "(", ")", "((", "))", " ", "  ", "\t", "\n", "!", "\"", ",", "é", "\u00a0", "\u2028", "😀", "\ud800",
);
const tokenChars = fc.constantFrom(..."aAoOnNdDrR01_:-.*() \t\n!&|".split(""));
const utf16Unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

describe("parsePermissionQuery never throws", () => {
  const runs = { numRuns: 2000 };
  it("on arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ maxLength: 1200 }), checkParseResult), runs);
  });

  it("on full-unicode strings, including astral code points", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), checkParseResult), { numRuns: 1000 });
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), checkParseResult), { numRuns: 500 });
  });

  it("on strings of raw UTF-16 units, including lone surrogates", () => {
    fc.assert(fc.property(fc.string({ unit: utf16Unit, maxLength: 200 }), checkParseResult), runs);
  });

  it("on strings built from the token alphabet, parentheses and keywords", () => {
    fc.assert(fc.property(fc.array(tokenPiece, { maxLength: 60 }).map((parts) => parts.join("")), checkParseResult), runs);
    fc.assert(fc.property(fc.array(tokenPiece, { maxLength: 60 }).map((parts) => parts.join(" ")), checkParseResult), runs);
    fc.assert(fc.property(fc.string({ unit: tokenChars, maxLength: 120 }), checkParseResult), runs);
  });

  it("on deeply nested and very long inputs", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 600 }), (open, close) => {
      checkParseResult(`${"(".repeat(open)}a${")".repeat(close)}`);
      checkParseResult(`${"( ".repeat(open)}a`);
      checkParseResult(`a${" AND".repeat(close)}`);
    }), { numRuns: 300 });
  });
});

// ---- Round trip: random ASTs printed with random decoration parse back to an equivalent query. ----

type Ast = { name: string } | { op: "and" | "or"; items: Ast[] };

const leafName = fc.oneof(
  fc.constantFrom("p1", "p2", "p3", "p4", "p5", "api.*.read_api", "documents.read", "a:b-c", "*", "android", "ORDER"),
  fc.stringMatching(/^[a-zA-Z0-9_:\-.*]{1,12}$/).filter((name) => !KEYWORD.test(name)),
);

const { ast } = fc.letrec<{ ast: Ast }>((tie) => ({
  ast: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafName.map((name): Ast => ({ name })),
    fc.record({ op: fc.constantFrom("and" as const, "or" as const), items: fc.array(tie("ast"), { minLength: 1, maxLength: 4 }) }),
  ),
}));

/** The reference semantics, written independently of the module under test. */
function reference(node: Ast, granted: ReadonlySet<string>): boolean {
  if ("name" in node) return granted.has(node.name);
  const results = node.items.map((item) => reference(item, granted));
  return node.op === "and" ? !results.includes(false) : results.includes(true);
}

function namesIn(node: Ast): string[] {
  return "name" in node ? [node.name] : node.items.flatMap(namesIn);
}

const keywordCase = (keyword: string) =>
  fc.array(fc.boolean(), { minLength: keyword.length, maxLength: keyword.length })
    .map((upper) => [...keyword].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""));

/**
 * Prints with random keyword case, whitespace and redundant parentheses. `inside` is the operator joining this
 * node to its siblings: an OR of several items needs parentheses inside an AND; a one-item list prints as its item.
 */
function print(node: Ast, g: fc.GeneratorValue, inside: "and" | "or" | "top"): string {
  const gap = () => g(fc.constantFrom, " ", "  ", "\t", "\n", " \r\n ");
  const pad = () => g(fc.constantFrom, "", "", " ", "\t");
  let text: string;
  let needsParens = false;
  if ("name" in node) {
    text = node.name;
  } else if (node.items.length === 1) {
    text = print(node.items[0], g, inside);
  } else {
    const { op } = node;
    needsParens = op === "or" && inside === "and";
    text = node.items
      .map((item, i) => (i === 0 ? "" : `${gap()}${g(keywordCase, op)}${gap()}`) + print(item, g, op))
      .join("");
  }
  const redundant = g(fc.integer, { min: 0, max: 3 }) === 3 ? g(fc.integer, { min: 1, max: 2 }) : 0;
  for (let i = 0; i < (needsParens ? 1 : 0) + redundant; i++) text = `(${pad()}${text}${pad()})`;
  return text;
}

describe("printed ASTs parse back to an equivalent query", () => {
  it("evaluates exactly like the reference evaluator of the original AST", () => {
    const seen = { true: 0, false: 0 };
    fc.assert(
      fc.property(ast, fc.gen(), (tree, g) => {
        const text = `${g(fc.constantFrom, "", " ", "\n")}${print(tree, g, "top")}${g(fc.constantFrom, "", " ", "\t")}`;
        fc.pre(text.length <= 1000);
        const result = parsePermissionQuery(text);
        if ("error" in result) throw new Error(`${JSON.stringify(text)}: ${result.error.message}`);
        const query: PermissionQuery = result.query;
        const names = namesIn(tree);
        expect(new Set(permissionNamesOf(query))).toEqual(new Set(names));
        // Several granted sets per tree: subsets of its own names (so both outcomes occur) plus strangers.
        for (let i = 0; i < 4; i++) {
          const granted = new Set([
            ...g(fc.subarray, [...new Set(names)]),
            ...g(fc.array, fc.constantFrom("p1", "p9", "api.x.read_api", "Documents.read"), { maxLength: 2 }),
          ]);
          const expected = reference(tree, granted);
          expect(evaluatePermissionQuery(query, granted)).toBe(expected);
          seen[`${expected}`]++;
        }
      }),
      { numRuns: 1500 },
    );
    expect(seen.true).toBeGreaterThan(100);
    expect(seen.false).toBeGreaterThan(100);
  });
});
