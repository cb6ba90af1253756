import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ListRootKeysResponseSchema } from "../../gen/keyward/v1/root_keys_pb.js";
import { toRestJson } from "../../src/transport/rest/rest-json.js";
import { sampleSchemas } from "./sample-schema.js";

const { sample } = sampleSchemas();

describe("toRestJson", () => {
  it("writes int64 fields as JSON numbers at every depth: fields, lists, nested and repeated messages, maps", () => {
    const message = create(sample, {
      big: 1_893_456_000_000n,
      unsignedBig: 7n,
      bigs: [1n, -2n],
      inner: { label: "x", count: 3n },
      inners: [{ count: 4n }, { count: 5n }],
      counts: { a: 6n },
      byName: { b: { count: 8n } },
    } as never);
    const json = toRestJson(sample, message);
    expect(json).toMatchObject({
      big: 1_893_456_000_000,
      unsignedBig: 7,
      bigs: [1, -2],
      inner: { label: "x", count: 3 },
      inners: [{ label: "", count: 4 }, { label: "", count: 5 }],
      counts: { a: 6 },
      byName: { b: { label: "", count: 8 } },
    });
  });

  it("always emits implicit fields (empty strings, zeros, false, empty lists)", () => {
    const json = toRestJson(sample, create(sample));
    expect(json).toMatchObject({ text: "", flag: false, small: 0, big: 0, ratio: 0, tags: [], bigs: [], counts: {} });
  });

  it("emits the product list shape: createdAt in ms as numbers, expires only when set", () => {
    const message = create(ListRootKeysResponseSchema, {
      data: [{ keyId: "key_1", start: "kw_root_abcd", permissions: ["api.*.read_api"], createdAt: 1_700_000_000_000n, expires: 1_800_000_000_000n }],
      pagination: { hasMore: true, cursor: "abc" },
    });
    expect(toRestJson(ListRootKeysResponseSchema, message)).toEqual({
      data: [{
        keyId: "key_1", start: "kw_root_abcd", permissions: ["api.*.read_api"], createdAt: 1_700_000_000_000, expires: 1_800_000_000_000,
      }],
      pagination: { hasMore: true, cursor: "abc" },
    });
  });

  it("accepts ±(2^53 - 1) and throws for anything beyond, wherever it sits", () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    expect(toRestJson(sample, create(sample, { big: max, bigs: [-max] } as never))).toMatchObject({
      big: Number.MAX_SAFE_INTEGER, bigs: [-Number.MAX_SAFE_INTEGER],
    });
    for (const init of [{ big: max + 1n }, { bigs: [0n, -(max + 1n)] }, { inner: { count: 2n ** 60n } }, { counts: { a: 2n ** 53n } },
      { byName: { b: { count: 2n ** 63n - 1n } } }, { unsignedBig: 2n ** 64n - 1n }]) {
      expect(() => toRestJson(sample, create(sample, init as never))).toThrow(/exceeds 2\^53/);
    }
  });
});
