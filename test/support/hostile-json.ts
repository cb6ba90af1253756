import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";

/**
 * Raw JSON number texts JSON.stringify cannot write: each stands in a generated value as a placeholder string and
 * is put back as the bare token (`1e309` parses as Infinity; the others overflow 2^53 or underflow to 0).
 */
const RAW_NUMBERS = ["1e309", "-1e309", "123456789012345678901234567890", "-0", "1e-400", "9007199254740993", "4.5e15", "0.0000001"];
const RAW = (i: number) => `\u0001raw${i}\u0001`;

/** Strings that broke decoders and stores elsewhere: lone surrogates, NUL, blanks, number lookalikes, long runs. */
const HOSTILE_STRINGS = [
  "\ud800", "x\udc00y", "\udbff\udbff", "\u0000", "", " ", "\t\n", "0x1F", " 12", "1e309", "NaN", "-1", "null", "true",
  "😀", "\u202e", "a".repeat(5000), "%00", "../../etc/passwd", "__proto__", "key_", "*", "a AND (b OR",
];

/** Free-form JSON nested `levels` deep, as text-safe objects. */
function nested(levels: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** One hostile JSON value: wrong types, odd strings and numbers, deep nesting, hostile keys; `ids` are real ids. */
export function hostileValue(ids: string[]): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...RAW_NUMBERS.map((_, i) => RAW(i))),
    fc.constantFrom(...(ids.length > 0 ? ids : ["api_none"])),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.oneof(
    { weight: 6, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(leaf, { maxLength: 5 }) },
    { weight: 2, arbitrary: fc.dictionary(fc.constantFrom("a", "\ud800", "__proto__", "constructor", "name", "x.y"), leaf, { maxKeys: 3 }) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 30, max: 400 }), leaf).map(([levels, value]) => nested(levels, value)) },
  );
}

/**
 * A hostile JSON body for a message, as text: mostly a plausible body (fields of the right types, real ids) with one
 * field, at any depth, replaced by a hostile value, so that the decoder gets past the fields around it; sometimes a
 * few fields all hostile, an unknown one, a body that is not an object, or text that is not JSON.
 */
export function hostileBody(schema: DescMessage, ids: string[]): fc.Arbitrary<string> {
  const value = hostileValue(ids);
  const mutated = fc.tuple(plausibleJson(schema, ids), fc.nat(), value).map(([body, pick, bad]) => replaceOne(body, pick, bad));
  const names = [...schema.fields.map((f) => f.jsonName), "unknownField"];
  const scattered = fc.dictionary(fc.constantFrom(...names), value, { minKeys: 1, maxKeys: 4 });
  const malformed = fc.constantFrom('{"a":', "{", '{"a":1,}', "[1,2", '{"a":"\\ud800"', '{"a":tru}', "\u0000", '"\\u12"', "{}{}");
  return fc.oneof(
    { weight: 10, arbitrary: mutated.map(toText) },
    { weight: 3, arbitrary: scattered.map(toText) },
    { weight: 1, arbitrary: value.map(toText) },
    { weight: 1, arbitrary: malformed },
  );
}

/** A body of the message's own fields with values of the right JSON types, real ids for strings. */
export function plausibleJson(schema: DescMessage, ids: string[]): fc.Arbitrary<Record<string, unknown>> {
  return plausible(schema, ids, 0);
}

/** `plausibleJson`, nested 3 deep at most. */
function plausible(schema: DescMessage, ids: string[], depth: number): fc.Arbitrary<Record<string, unknown>> {
  const entries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of schema.fields) {
    if (field.message?.typeName === "google.protobuf.FieldMask") continue;
    const one = fieldValue(field, ids, depth);
    if (one) entries[field.jsonName] = field.fieldKind === "list" ? fc.array(one, { maxLength: 2 }) : one;
  }
  return fc.record(entries, { requiredKeys: [] });
}

function fieldValue(field: DescField, ids: string[], depth: number): fc.Arbitrary<unknown> | undefined {
  if (field.fieldKind === "map") return fc.constant({});
  if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum")) {
    return fc.constantFrom(...field.enum.values.map((v) => v.name));
  }
  const message = field.message;
  if (message) {
    if (message.typeName === "google.protobuf.Struct") return fc.constant({ plan: "pro" });
    if (message.typeName === "google.protobuf.Value") return fc.constantFrom("fuzz.read", { and: ["fuzz.read"] });
    return depth < 3 ? plausible(message, ids, depth + 1) : undefined;
  }
  switch (field.scalar) {
    case ScalarType.STRING: return fc.constantFrom(...ids, "fuzz-name");
    case ScalarType.BOOL: return fc.boolean();
    case ScalarType.BYTES: return fc.constant("aGk=");
    case ScalarType.DOUBLE: case ScalarType.FLOAT: return fc.double({ min: 0, max: 100, noNaN: true });
    default: return fc.integer({ min: 0, max: 2000 });
  }
}

/** `body` with the `pick`-th (mod count) value in it, at any depth, replaced by `bad`; or `bad` added as a field. */
function replaceOne(body: Record<string, unknown>, pick: number, bad: unknown): unknown {
  const slots: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const collect = (node: unknown) => {
    if (Array.isArray(node)) node.forEach((item, i) => { slots.push([node, i]); collect(item); });
    else if (node !== null && typeof node === "object") {
      for (const [key, item] of Object.entries(node)) { slots.push([node as Record<string, unknown>, key]); collect(item); }
    }
  };
  const copy = structuredClone(body);
  collect(copy);
  if (slots.length === 0) return { ...copy, name: bad };
  const [holder, slot] = slots[pick % slots.length];
  (holder as Record<string | number, unknown>)[slot] = bad;
  return copy;
}

/** JSON text of a generated value with the raw number placeholders turned back into their tokens. */
export function toText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001raw(\d+)\\u0001"/g, (_, i: string) => RAW_NUMBERS[Number(i)]);
}
