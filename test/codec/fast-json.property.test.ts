import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeJsonVerifyKeyRequest, fastCodecs } from "../../gen/keyward/v1/keys_fast.js";
import { numberText } from "../../gen/keyward_fast/wire.js";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../../gen/keyward/v1/keys_pb.js";
import { decodeCheckedJson } from "../../src/transport/json-check.js";
import { restJsonText, toRestJson, walkedRestJson } from "../../src/transport/rest/rest-json.js";
import { decodeInput } from "../../src/transport/rest/wire.js";
import { messageArb } from "./message-arbitraries.js";

// The generated REST JSON decoders (scripts/protoc-gen-keyward-fast/json-decoder.ts) against the path they shortcut:
// checkJson in the REST dialect, then protobuf-es fromJson. On random JSON built from the descriptors, mostly valid,
// often spoiled (nulls, wrong types, out-of-range numbers, unknown or doubled keys, lone surrogates), a fast answer
// is given only where that path accepts, and is then the same message; v1 (unknown keys allowed) and v2 alike.

const RUNS = Number(process.env.FAST_JSON_RUNS ?? 400);
const MAX_DEPTH = 3;

const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.constantFrom("", "\ud800", "a\udc00b", "😀"));
const junk = fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 }), fc.constantFrom("toString", "__proto__", 1.5, -0, 2 ** 53, "12"));

function scalarJson(scalar: ScalarType): fc.Arbitrary<unknown> {
  switch (scalar) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b).toString("base64"));
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 3.5e38, "NaN", "1.5"));
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.maxSafeInteger(), fc.constantFrom(-0, 2 ** 53, -(2 ** 53), 1e21, "5", 0.5));
    default:
      return fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.integer(), fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 32, -0, "7"));
  }
}

function singleJson(field: DescField, depth: number): fc.Arbitrary<unknown> {
  if (field.enum) return fc.constantFrom(...field.enum.values.map((v) => v.name), ...field.enum.values.map((v) => v.number), "UNKNOWN_NAME", "toString");
  if (field.message) {
    if (field.message.typeName.startsWith("google.protobuf.") || depth >= MAX_DEPTH) return fc.jsonValue({ maxDepth: 2 });
    return messageJson(field.message, depth + 1);
  }
  return scalarJson(field.scalar!);
}

/** A field's JSON: mostly of its type, sometimes junk. */
function fieldJson(field: DescField, depth: number): fc.Arbitrary<unknown> {
  const item = fc.oneof({ weight: 20, arbitrary: singleJson(field, depth) }, { weight: 1, arbitrary: junk });
  switch (field.fieldKind) {
    case "list":
      return fc.oneof({ weight: 20, arbitrary: fc.array(item, { maxLength: 4 }) }, { weight: 1, arbitrary: junk });
    case "map":
      return fc.oneof(fc.dictionary(text, item, { maxKeys: 3 }), junk);
    default:
      return item;
  }
}

const arbs = new Map<string, fc.Arbitrary<unknown>>();

/** A JSON object for `desc`: each field absent or present under its JSON or proto name (sometimes both), extra keys. */
function messageJson(desc: DescMessage, depth = 0): fc.Arbitrary<unknown> {
  const cacheKey = `${desc.typeName}@${depth}`;
  const cached = arbs.get(cacheKey);
  if (cached) return cached;
  const parts = desc.fields.map((field) =>
    fc.option(fc.tuple(fc.constantFrom("json", "proto", "both"), fieldJson(field, depth), fieldJson(field, depth)), { nil: undefined, freq: 2 })
      .map((entry) => {
        if (!entry) return [] as [string, unknown][];
        const [naming, value, other] = entry;
        if (naming === "json") return [[field.jsonName, value]] as [string, unknown][];
        if (naming === "proto") return [[field.name, value]] as [string, unknown][];
        return field.name === field.jsonName ? [[field.name, value]] : [[field.name, value], [field.jsonName, other]] as [string, unknown][];
      }),
  );
  const extra = fc.option(fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor")), junk, { maxKeys: 2 }), { nil: {}, freq: 4 });
  const arb = fc.oneof(
    { weight: 12, arbitrary: fc.tuple(fc.tuple(...parts), extra).map(([entries, more]) => Object.assign(JSON.parse("{}") as object, JSON.parse(JSON.stringify(Object.fromEntries(entries.flat()))), more)) },
    { weight: 1, arbitrary: junk },
  );
  arbs.set(cacheKey, arb);
  return arb;
}

/** What the full REST path answers: the message, or a refusal (its text). */
function reference(desc: DescMessage, json: unknown, allowUnknown: boolean): { value?: unknown; error?: string } {
  try {
    return { value: decodeCheckedJson(desc, json, { allowUnknown, prefix: "", dialect: "rest", name: (l) => l }) };
  } catch (error) {
    return { error: String(error) };
  }
}

describe("generated REST JSON decoders agree with checkJson + fromJson", () => {
  for (const codec of fastCodecs) {
    const wellKnown = codec.schema.typeName.startsWith("google.protobuf.");
    it(`${codec.schema.typeName}: a fast answer only where the full path accepts, and the same message`, () => {
      let fastAnswers = 0;
      fc.assert(
        fc.property(messageJson(codec.schema), fc.boolean(), (json, allowUnknown) => {
          // Through JSON text, as a request body arrives: a "__proto__" key is then an own property.
          const parsed = JSON.parse(JSON.stringify(json) ?? "null");
          const expected = reference(codec.schema, parsed, allowUnknown);
          const fast = codec.json(parsed, allowUnknown);
          if (fast === undefined) return;
          fastAnswers++;
          expect(expected.error).toBeUndefined();
          expect(fast).toStrictEqual(expected.value);
        }),
        { numRuns: RUNS },
      );
      // The fast path is really taken, not undefined throughout (the generated JSON is mostly valid).
      // Well-known types (their own JSON forms) always take fromJson.
      if (wellKnown) expect(fastAnswers).toBe(0);
      // The request REST decodes on every verification is mostly fast (fields of types left to fromJson, like a
      // response's Struct, make other messages bail more often).
      else expect(fastAnswers).toBeGreaterThan(codec.schema.typeName === "keyward.v1.VerifyKeyRequest" ? RUNS / 10 : 0);
    });
  }
});

describe("REST decodeInput with the generated decoder", () => {
  it("takes a typical v2 verification body on the fast path, with int64 as BigInt", () => {
    const body = { key: "kw_abc", tags: ["a", "b"], credits: { cost: 2 }, ratelimits: [{ name: "rl", cost: 0, limit: 10, duration: 60000 }] };
    const fast = decodeJsonVerifyKeyRequest(body, false);
    expect(fast).toBeDefined();
    expect(fast!.credits!.cost).toBe(2n);
    expect(fast!.ratelimits[0]).toMatchObject({ name: "rl", cost: 0n, limit: 10n, duration: 60000n });
    expect(decodeInput(VerifyKeyRequestSchema, body, { allowUnknown: false, prefix: "body" })).toStrictEqual(fast);
  });

  it("leaves refusals to the full path, with today's messages", () => {
    const schema = VerifyKeyRequestSchema;
    const cases: [unknown, boolean, string][] = [
      [{ key: "k", extra: 1 }, false, "body.extra: is not a known field"],
      [{ key: null }, false, "body.key: must not be null; leave the field out instead"],
      [{ key: "k", credits: { cost: "5" } }, false, "body.credits.cost: must be an integer below 2^53"],
      [{ key: "k", idempotencyKey: "a", idempotency_key: "b" }, false, "body: cannot decode field keyward.v1.VerifyKeyRequest.idempotency_key"],
      [{ key: "\ud800" }, false, "body.key:"],
      [[], false, "body: must be an object"],
    ];
    for (const [body, allowUnknown, message] of cases) {
      expect(decodeJsonVerifyKeyRequest(body, allowUnknown)).toBeUndefined();
      expect(() => decodeInput(schema, body, { allowUnknown, prefix: "body" })).toThrow(message);
    }
    // v1 ignores unknown keys: fast, and the same message as the full path.
    const v1 = decodeJsonVerifyKeyRequest({ key: "k", apiId: "api_1" }, true);
    expect(v1).toStrictEqual(reference(schema, { key: "k", apiId: "api_1" }, true).value);
  });
});

// The generated REST JSON encoders against rest-json.ts's descriptor walk: on random messages and on their init
// objects (fields left out), the same JSON text, or undefined where the walk answers otherwise (then it does).
describe("generated REST JSON encoders write what rest-json.ts writes", () => {
  for (const codec of fastCodecs) {
    const wellKnown = codec.schema.typeName.startsWith("google.protobuf.");
    it(`${codec.schema.typeName}: the same JSON text, from a message and from its init object`, () => {
      let fastAnswers = 0;
      fc.assert(
        fc.property(messageArb(codec.schema), ({ init, message }) => {
          for (const input of [message, init]) {
            const walked = outcome(() => JSON.stringify(walkedRestJson(codec.schema, input as never)));
            const fast = codec.restJson(input);
            // Through toRestJson, as REST answers: the same outcome with the generated encoder first.
            expect(outcome(() => JSON.stringify(toRestJson(codec.schema, input as never)))).toStrictEqual(walked);
            // The text encoder: JSON.stringify of that object, written directly, and undefined exactly where it is.
            const text = codec.restJsonText(input);
            expect(text === undefined).toBe(fast === undefined);
            expect(outcome(() => restJsonText(codec.schema, input as never))).toStrictEqual(walked);
            if (fast === undefined) continue;
            expect(text).toBe(JSON.stringify(fast));
            fastAnswers++;
            expect(walked.error).toBeUndefined();
            expect(JSON.stringify(fast)).toBe(walked.value);
          }
        }),
        { numRuns: RUNS },
      );
      // Well-known types and messages with a oneof are left to the walk (and protobuf-es' toJson).
      if (wellKnown || codec.schema.oneofs.length > 0) expect(fastAnswers).toBe(0);
      else expect(fastAnswers).toBeGreaterThan(0);
    });
  }

  it("writes a typical verification answer with int64 as numbers and implicit fields present", () => {
    const answer = { valid: true, code: "VALID", keyId: "key_1", credits: 9n, ratelimits: [{ exceeded: false, id: "rl_1", name: "rl", limit: 10n, remaining: 9n, reset: 1700000000000n, duration: 60000n }] };
    const json = toRestJson(VerifyKeyResponseSchema, answer as never);
    expect(JSON.stringify(json)).toBe(JSON.stringify(walkedRestJson(VerifyKeyResponseSchema, answer as never)));
    expect(json).toMatchObject({ valid: true, code: "VALID", keyId: "key_1", credits: 9, permissions: [], roles: [] });
  });
});

describe("numberText", () => {
  it("writes JSON.stringify's text for every number, also for repeated values and values that share a table slot", () => {
    // Repeats (hits), neighbours, multiples of powers of two (which share low bits), doubles and the specials.
    const repeated = [1e9, 60_000, 1_700_000_000_000, 2 ** 53, -(2 ** 40), 0.1 + 0.2];
    const number = fc.oneof(
      fc.constantFrom(...repeated, -0, 1023, 1024, -1024, Number.NaN, Infinity, -Infinity, 1e21, 1e-7),
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.integer({ min: 0, max: 2 ** 20 }).map((n) => n * 2 ** 13),
      fc.double(),
    );
    fc.assert(fc.property(fc.array(number, { minLength: 1, maxLength: 200 }), (values) => {
      for (const n of values) expect(numberText(n)).toBe(JSON.stringify(n));
    }), { numRuns: 500 });
  });
});

function outcome(run: () => unknown): { value?: unknown; error?: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: String(error) };
  }
}
