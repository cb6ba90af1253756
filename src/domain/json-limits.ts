import type { Violation } from "./errors.js";

/**
 * How deep free-form JSON (metadata, a v1 permission query) may nest. MongoDB refuses documents nested past 100
 * levels and a key's metadata sits a few levels down in its document, so the bound is well below that; no metadata
 * needs more.
 */
export const MAX_FREE_FORM_DEPTH = 32;

/**
 * The problems of a free-form JSON value that every store and encoder would trip over: nesting past
 * MAX_FREE_FORM_DEPTH, a number that is not finite (`1e309` parses as Infinity), and a string or object key holding
 * a lone UTF-16 surrogate (`"\ud800"`), which has no UTF-8 form. At most one problem is reported per value, at
 * `at` and below it (`meta.a.b`).
 */
export function freeFormViolations(value: unknown, at: string): Violation[] {
  const out: Violation[] = [];
  walk(value, at, 1, out);
  return out;
}

function walk(value: unknown, at: string, depth: number, out: Violation[]): void {
  if (out.length > 0) return;
  if (typeof value === "string") {
    if (!isWellFormed(value)) out.push({ location: at, message: WELL_FORMED });
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) out.push({ location: at, message: "must be a finite number" });
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (depth > MAX_FREE_FORM_DEPTH) {
    out.push({ location: at, message: `nests deeper than ${MAX_FREE_FORM_DEPTH} levels` });
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && out.length === 0; i++) walk(value[i], `${at}[${i}]`, depth + 1, out);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isWellFormed(key)) return void out.push({ location: at, message: KEY_NOT_WELL_FORMED });
    walk(item, `${at}.${key}`, depth + 1, out);
    if (out.length > 0) return;
  }
}

/** Whether `text` is valid Unicode: in `u` mode a surrogate pair is one code point, so `\p{Cs}` finds only lone halves. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /\p{Cs}/u;

/** The message for a lone surrogate: the JSON escape is legal, but the text it makes is not Unicode. */
export const WELL_FORMED = "must be valid Unicode (a lone surrogate such as \\ud800 is not)";
export const KEY_NOT_WELL_FORMED = "has a key that is not valid Unicode (a lone surrogate such as \\ud800)";
