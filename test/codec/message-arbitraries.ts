import { create, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";

// Random messages of a type built from its descriptor, shared by the generated codecs' property tests.

const MAX_DEPTH = 3;

const INT64_EDGES = [0n, 1n, -1n, 127n, 128n, 2n ** 31n - 1n, -(2n ** 31n), 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n)];
const UINT64_EDGES = [0n, 1n, 2n ** 32n - 1n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n];

const text = fc.oneof(
  fc.constant(""),
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }), // lone surrogates included: both sides write U+FFFD
  fc.string({ minLength: 100, maxLength: 400 }), // lengths past one varint byte
  // Around the rules' length bounds (255, 256, 512, 1000), in code points that take one or two UTF-16 units.
  fc.tuple(fc.constantFrom(0, 1, 127, 128, 254, 255, 256, 257, 511, 512, 513, 999, 1000, 1001), fc.constantFrom("k", "é", "😀", "\ud800")).map(([n, unit]) => unit.repeat(n)),
);

function scalarArb(scalar: ScalarType): fc.Arbitrary<unknown> {
  switch (scalar) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 200 });
    case ScalarType.DOUBLE:
      return fc.oneof(fc.double(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity));
    case ScalarType.FLOAT:
      return fc.float().map((n) => n);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      // Small values too, which the rules' ranges (counts, milliseconds) accept.
      return fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(...INT64_EDGES), fc.bigInt({ min: -10n, max: 100_000n }));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.constantFrom(...UINT64_EDGES));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    default:
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
  }
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const jsonObject = fc.dictionary(fc.string(), jsonValue, { maxKeys: 4 });

const isJsonStruct = (field: DescField) => field.message?.typeName === "google.protobuf.Struct" && field.parent.typeName !== "google.protobuf.Value";

/** A field's value as create() takes it: nested messages as init objects, Struct fields as JSON. */
function valueArb(field: DescField, depth: number): fc.Arbitrary<unknown> {
  const single = (): fc.Arbitrary<unknown> => {
    if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum") || (field.fieldKind === "map" && field.mapKind === "enum")) {
      const values = field.enum!.values.map((v) => v.number);
      return fc.oneof(fc.constantFrom(...values), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
    }
    if (field.message) return isJsonStruct(field) ? jsonObject : initArb(field.message, depth + 1);
    return scalarArb(field.scalar!);
  };
  const deep = depth >= MAX_DEPTH && field.message !== undefined;
  switch (field.fieldKind) {
    case "list":
      return fc.array(single(), { maxLength: deep ? 0 : 4 });
    case "map":
      return fc.dictionary(text, single(), { maxKeys: deep ? 0 : 3 });
    default:
      return single();
  }
}

const initArbs = new Map<string, fc.Arbitrary<Record<string, unknown>>>();

/** An init object for `desc`: each field absent, zero or random; one oneof case or none. Shallow past MAX_DEPTH. */
export function initArb(desc: DescMessage, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const key = `${desc.typeName}@${depth}`;
  const cached = initArbs.get(key);
  if (cached) return cached;
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      const cases = depth >= MAX_DEPTH ? member.fields.filter((f) => f.message === undefined) : member.fields;
      parts[member.localName] = fc.oneof(
        fc.constant(undefined),
        ...cases.map((f) => fc.record({ case: fc.constant(f.localName), value: valueArb(f, depth) })),
      );
    } else if (member.fieldKind === "message" && depth >= MAX_DEPTH) {
      parts[member.localName] = fc.constant(undefined);
    } else {
      parts[member.localName] = fc.option(valueArb(member, depth), { nil: undefined, freq: 3 });
    }
  }
  const arb = fc.record(parts, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
  initArbs.set(key, arb);
  return arb;
}

/** A message of the type: create() of a random init. */
export const messageArb = (desc: DescMessage) => initArb(desc).map((init) => ({ init, message: create(desc, init as never) }));

