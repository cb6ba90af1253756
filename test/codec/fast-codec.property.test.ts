import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCodecs } from "../../gen/keyward/v1/keys_fast.js";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../../gen/keyward/v1/keys_pb.js";
import { hasOption } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { field as fieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { decodeProtoBinary, decodeProtoBinaryChecked } from "../../src/transport/binary-check.js";
import { messageArb } from "./message-arbitraries.js";

// The generated codecs (scripts/protoc-gen-keyward-fast) against protobuf-es on random messages built from the
// descriptors: the same bytes as toBinary, the same messages as fromBinary, and never a message where fromBinary
// refuses the bytes.

const RUNS = 300;

/** The decoder's verdict beside fromBinary's: a fast answer only where fromBinary accepts, and then the same message. */
function expectAgreement(desc: DescMessage, decode: (bytes: Uint8Array) => object | undefined, bytes: Uint8Array) {
  let reference: unknown;
  let refused = false;
  try {
    reference = fromBinary(desc, bytes);
  } catch {
    refused = true;
  }
  const fast = decode(bytes);
  if (refused) expect(fast).toBeUndefined();
  else if (fast !== undefined) expect(fast).toStrictEqual(reference);
  // The transport's decoding gives the same answer (message or error text) with and without the fast path.
  expect(outcome(() => decodeProtoBinary(desc, bytes))).toStrictEqual(outcome(() => decodeProtoBinaryChecked(desc, bytes)));
}

function outcome(run: () => unknown): { value?: unknown; error?: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: String(error) };
  }
}

/** Valid bytes spoiled: cut short, one byte changed, or bytes slipped in. */
const garbled = (bytes: Uint8Array) =>
  fc.oneof(
    fc.nat({ max: Math.max(0, bytes.length - 1) }).map((n) => bytes.subarray(0, n)),
    fc.tuple(fc.nat({ max: Math.max(0, bytes.length - 1) }), fc.integer({ min: 0, max: 255 })).map(([at, b]) => {
      const copy = bytes.slice();
      if (copy.length > 0) copy[at] = b;
      return copy;
    }),
    fc.tuple(fc.nat({ max: bytes.length }), fc.uint8Array({ minLength: 1, maxLength: 6 })).map(([at, extra]) => {
      const out = new Uint8Array(bytes.length + extra.length);
      out.set(bytes.subarray(0, at));
      out.set(extra, at);
      out.set(bytes.subarray(at), at + extra.length);
      return out;
    }),
  );

describe("generated binary codecs (protoc-gen-keyward-fast)", () => {
  it("cover VerifyKeyRequest and VerifyKeyResponse with every message they reach", () => {
    const names = fastCodecs.map((c) => c.schema.typeName);
    expect(names).toEqual(expect.arrayContaining([
      VerifyKeyRequestSchema.typeName, VerifyKeyResponseSchema.typeName, "keyward.v1.CreditsCost", "keyward.v1.RatelimitRequest",
      "keyward.v1.RatelimitResult", "keyward.v1.Identity", "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue",
    ]));
  });

  it("leaves out a map's own __proto__ key, as protobuf-es's create does (found by the property below)", () => {
    const codec = fastCodecs.find((c) => c.schema.typeName === "google.protobuf.Struct")!;
    const fields = JSON.parse('{"__proto__": {}, "plan": {}}');
    fields.plan = { kind: { case: "stringValue", value: "pro" } };
    const expected = toBinary(codec.schema, create(codec.schema, { fields } as never));
    expect(expected.length).toBe(15); // the "plan" entry alone
    expect(codec.encode({ fields } as never)).toEqual(expected);
  });

  for (const codec of fastCodecs) {
    const desc = codec.schema;
    describe(desc.typeName, () => {
      it("encodes a message and its init object to toBinary's exact bytes, with reserved room in front", () => {
        fc.assert(fc.property(messageArb(desc), fc.nat({ max: 6 }), ({ init, message }, reserve) => {
          const expected = toBinary(desc, message);
          expect(codec.encode(message as never)).toEqual(expected);
          expect(codec.encode(init as never)).toEqual(expected);
          const framed = codec.encode(message as never, reserve);
          expect(framed.length).toBe(reserve + expected.length);
          expect(framed.subarray(reserve)).toEqual(expected);
        }), { numRuns: RUNS });
      });

      it("decodes toBinary's bytes to fromBinary's message, always on the fast path", () => {
        fc.assert(fc.property(messageArb(desc), ({ message }) => {
          const bytes = toBinary(desc, message);
          const fast = codec.decode(bytes);
          expect(fast).toBeDefined();
          expect(fast).toStrictEqual(fromBinary(desc, bytes));
        }), { numRuns: RUNS });
      });

      it("never answers where fromBinary refuses: random, truncated and garbled bytes", () => {
        fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => expectAgreement(desc, codec.decode, bytes)), { numRuns: RUNS });
        fc.assert(
          fc.property(messageArb(desc).chain(({ message }) => garbled(toBinary(desc, message))), (bytes) => expectAgreement(desc, codec.decode, bytes)),
          { numRuns: RUNS },
        );
      });
    });
  }

  const validator = createValidator();
  for (const codec of fastCodecs.filter((c) => c.valid !== undefined)) {
    const desc = codec.schema;
    const valid = codec.valid!;
    it(`${desc.typeName}: the generated check passes exactly what protovalidate passes`, () => {
      let passed = 0;
      fc.assert(fc.property(messageArb(desc), ({ message }) => {
        const verdict = validator.validate(desc, message as never).kind;
        expect(verdict).not.toBe("error");
        expect(valid(message as never)).toBe(verdict === "valid");
        if (verdict === "valid") passed++;
      }), { numRuns: RUNS * 2 });
      // Both verdicts are reached (where the type has rules of its own), so the comparison means something.
      expect(passed).toBeGreaterThan(0);
      if (desc.fields.some((f) => hasOption(f, fieldRules))) expect(passed).toBeLessThan(RUNS * 2);
    });
  }

  it("generates checks for the request messages and their rules", () => {
    const checked = fastCodecs.filter((c) => c.valid !== undefined).map((c) => c.schema.typeName);
    expect(checked).toEqual(expect.arrayContaining([VerifyKeyRequestSchema.typeName, "keyward.v1.CreditsCost", "keyward.v1.RatelimitRequest"]));
  });

  it("leaves input it does not take to protobuf-es: unknown fields, a wrong wire type, a repeated singular message", () => {
    const key = [0x0a, 0x01, 0x6b];
    const unknown = Uint8Array.from([...key, 0xf8, 0x01, 0x05]); // field 31, varint 5
    expect(decodeRequest(unknown)).toBeUndefined();
    expect(decodeProtoBinary(VerifyKeyRequestSchema, unknown).$unknown).toEqual([{ no: 31, wireType: 0, data: Uint8Array.of(5) }]);
    expect(decodeRequest(Uint8Array.from([0x08, 0x01]))).toBeUndefined(); // key as a varint
    expect(() => decodeProtoBinary(VerifyKeyRequestSchema, Uint8Array.from([0x08, 0x01]))).toThrow(/field key \(1\) has wire type Varint/);
    const twice = Uint8Array.from([0x22, 0x02, 0x08, 0x01, 0x22, 0x00]); // credits twice: fromBinary merges
    expect(decodeRequest(twice)).toBeUndefined();
    expect(decodeProtoBinary(VerifyKeyRequestSchema, twice).credits?.cost).toBe(1n);
    expect(decodeRequest(Uint8Array.from([0x0a, 0x02, 0xc3, 0x28]))).toBeUndefined(); // invalid UTF-8
    expect(() => decodeProtoBinary(VerifyKeyRequestSchema, Uint8Array.from([0x0a, 0x02, 0xc3, 0x28]))).toThrow(/not a valid keyward.v1.VerifyKeyRequest/);
  });
});

const decodeRequest = fastCodecs.find((c) => c.schema === VerifyKeyRequestSchema)!.decode;
