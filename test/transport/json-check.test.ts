import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { CreateRootKeyRequestSchema } from "../../gen/keyward/v1/root_keys_pb.js";
import { ListKeysRequestSchema } from "../../gen/keyward/v1/apis_pb.js";
import { checkJson } from "../../src/transport/json-check.js";
import { KEY_NOT_WELL_FORMED, MAX_FREE_FORM_DEPTH, WELL_FORMED } from "../../src/domain/json-limits.js";
import { sampleSchemas } from "./sample-schema.js";

const { sample } = sampleSchemas();
const strict = { allowUnknown: false, prefix: "" };
const proto = { allowUnknown: true, prefix: "", dialect: "proto" as const };
const check = (value: unknown, options = strict) => checkJson(sample, value, options);
const locations = (value: unknown, options = strict) => check(value, options).map((v) => v.location);

const valid = {
  text: "hello", flag: true, small: -(2 ** 31), big: Number.MAX_SAFE_INTEGER, unsignedBig: 0, ratio: 0.5, raw: "aGk=",
  color: "COLOR_RED", inner: { label: "x", count: 3 }, inners: [{ label: "y" }], bigs: [1, -2], tags: ["a"],
  counts: { a: 1 }, byName: { b: { label: "z" } }, meta: { any: ["thing", 1, null] }, anyValue: [1, "two"],
  colors: ["COLOR_UNSPECIFIED"],
};

describe("checkJson", () => {
  it("accepts a body of every field shape, and the decoder then takes it without error", () => {
    expect(check(valid)).toEqual([]);
    expect(() => fromJson(sample, valid as JsonValue)).not.toThrow();
  });

  it("accepts proto field names as well as JSON names", () => {
    expect(check({ unsigned_big: 5, any_value: [1] })).toEqual([]);
  });

  it("refuses null for a field on REST (leave it out instead), where proto JSON reads it as 'not set'", () => {
    const body = { text: null, inner: null, inners: [{ label: null }] };
    expect(check(body)).toEqual([
      { location: "text", message: "must not be null; leave the field out instead" },
      { location: "inner", message: "must not be null; leave the field out instead" },
      { location: "inners[0].label", message: "must not be null; leave the field out instead" },
    ]);
    expect(checkJson(sample, body, proto)).toEqual([]);
  });

  it("refuses a lone surrogate in any string: a field, a list item, free-form values and keys, an unknown key", () => {
    expect(check({ text: "\ud800", tags: ["ok", "x\udc00"], meta: { a: { b: "\udbff" } }, anyValue: ["\ud800"] })).toEqual([
      { location: "text", message: WELL_FORMED },
      { location: "tags[1]", message: WELL_FORMED },
      { location: "meta.a.b", message: WELL_FORMED },
      { location: "anyValue[0]", message: WELL_FORMED },
    ]);
    expect(check({ meta: { "\ud800": 1 }, counts: { "\udfff": 1 } })).toEqual([
      { location: "meta", message: KEY_NOT_WELL_FORMED },
      { location: "counts", message: KEY_NOT_WELL_FORMED },
    ]);
    expect(check({ "\ud800": 1 })).toEqual([{ location: "", message: KEY_NOT_WELL_FORMED }]);
    // A surrogate pair is one character, and fine.
    expect(check({ text: "\ud83d\ude00", meta: { "\ud83d\ude00": "\ud83d\ude00" } })).toEqual([]);
  });

  it(`refuses free-form JSON nested past ${MAX_FREE_FORM_DEPTH} levels and numbers that are not finite`, () => {
    const nested = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels - 1)}{"x":1}${"}".repeat(levels - 1)}`);
    expect(check({ meta: nested(MAX_FREE_FORM_DEPTH) })).toEqual([]);
    expect(check({ meta: nested(MAX_FREE_FORM_DEPTH + 1) })).toEqual([
      { location: `meta${".a".repeat(MAX_FREE_FORM_DEPTH)}`, message: `nests deeper than ${MAX_FREE_FORM_DEPTH} levels` },
    ]);
    expect(check({ meta: { n: -Infinity }, anyValue: JSON.parse("[[1e309]]") })).toEqual([
      { location: "meta.n", message: "must be a finite number" },
      { location: "anyValue[0][0]", message: "must be a finite number" },
    ]);
    // Deep enough to overflow a recursive decoder, and still one short violation.
    expect(check({ meta: nested(100_000) })).toHaveLength(1);
  });

  it("in proto JSON takes numbers as decimal strings, but not protobuf-es' other readings (blank, hex, binary, signs)", () => {
    expect(checkJson(sample, { small: "-5", big: "9007199254740993", unsignedBig: "18446744073709551615", ratio: "NaN", color: 1 }, proto)).toEqual([]);
    const refused = { big: " ", small: "0x1F", unsignedBig: "0b11", bigs: ["+5", "1e2", ""] };
    expect(checkJson(sample, refused, proto).map((v) => v.location)).toEqual(["big", "small", "unsignedBig", "bigs[0]", "bigs[1]", "bigs[2]"]);
    expect(checkJson(sample, { big: "9223372036854775808", unsignedBig: "-1", ratio: "1.2.3" }, proto)).toEqual([
      { location: "big", message: "must be an integer from -9223372036854775808 to 9223372036854775807" },
      { location: "unsignedBig", message: "must be a non-negative integer below 2^53" },
      { location: "ratio", message: "must be a number" },
    ]);
  });

  it("refuses a top level that is not an object, at the prefix", () => {
    for (const value of [[], "x", null, 5, true]) {
      expect(checkJson(sample, value, { allowUnknown: false, prefix: "body" })).toEqual([{ location: "body", message: "must be an object" }]);
    }
  });

  it("refuses unknown fields at any depth unless allowed", () => {
    const body = { extra: 1, inner: { nope: 2 }, inners: [{}, { deeper: 3 }], byName: { k: { what: 4 } } };
    expect(locations(body)).toEqual(["extra", "inner.nope", "inners[1].deeper", "byName.k.what"]);
    expect(check(body)[0]).toEqual({ location: "extra", message: "is not a known field" });
    expect(check(body, { allowUnknown: true, prefix: "" })).toEqual([]);
  });

  it("prefixes locations: `body.field` for bodies, `query.field` for v1 queries", () => {
    expect(checkJson(sample, { text: 5 }, { allowUnknown: false, prefix: "body" })).toEqual([{ location: "body.text", message: "must be a string" }]);
    expect(checkJson(sample, { small: "1" }, { allowUnknown: false, prefix: "query" })[0].location).toBe("query.small");
  });

  it("refuses numbers as strings and strings as numbers, unlike proto JSON", () => {
    expect(check({ small: "5", big: "5", ratio: "0.5", text: 5, flag: "true", raw: 1 })).toEqual([
      { location: "small", message: "must be an integer (32 bit)" },
      { location: "big", message: "must be an integer below 2^53" },
      { location: "ratio", message: "must be a number" },
      { location: "text", message: "must be a string" },
      { location: "flag", message: "must be a boolean" },
      { location: "raw", message: "must be a base64 string" },
    ]);
  });

  it("holds integers to their width: int32 from -2^31 to 2^31-1, int64 within ±(2^53-1), no floats", () => {
    expect(check({ small: 2 ** 31 - 1 })).toEqual([]);
    expect(check({ small: -(2 ** 31) })).toEqual([]);
    expect(locations({ small: 2 ** 31 })).toEqual(["small"]);
    expect(locations({ small: -(2 ** 31) - 1 })).toEqual(["small"]);
    expect(locations({ small: 1.5 })).toEqual(["small"]);
    expect(check({ big: -Number.MAX_SAFE_INTEGER })).toEqual([]);
    expect(locations({ big: 2 ** 53 })).toEqual(["big"]);
    expect(locations({ big: 0.1 })).toEqual(["big"]);
    expect(locations({ unsignedBig: -1 })).toEqual(["unsignedBig"]);
    expect(locations({ ratio: Number.NaN })).toEqual(["ratio"]);
  });

  it("checks list items, map values and enum names, each at its own location", () => {
    expect(check({ bigs: [1, "2", 3.5], tags: ["a", 1], counts: { a: "1" }, colors: ["COLOR_RED", "PURPLE", 1] })).toEqual([
      { location: "bigs[1]", message: "must be an integer below 2^53" },
      { location: "bigs[2]", message: "must be an integer below 2^53" },
      { location: "tags[1]", message: "must be a string" },
      { location: "counts.a", message: "must be an integer below 2^53" },
      { location: "colors[1]", message: "must be one of COLOR_UNSPECIFIED, COLOR_RED" },
      { location: "colors[2]", message: "must be one of COLOR_UNSPECIFIED, COLOR_RED" },
    ]);
    expect(locations({ color: "PURPLE" })).toEqual(["color"]);
    expect(locations({ tags: "a", counts: [1], inner: "x", inners: {} })).toEqual(["tags", "counts", "inner", "inners"]);
  });

  it("takes Struct as any object and Value as any JSON, refusing only a Struct that is not an object", () => {
    expect(check({ meta: { nested: { deep: [1, { x: true }] } }, anyValue: "s" })).toEqual([]);
    expect(check({ meta: [1] })).toEqual([{ location: "meta", message: "must be an object" }]);
  });

  it("on the product contract: names `limit` on ListKeys and `permissions[1]` / `expires` on CreateRootKey", () => {
    const options = { allowUnknown: false, prefix: "body" };
    expect(checkJson(ListKeysRequestSchema, { apiId: "api_1", limit: "5" }, options)).toEqual([
      { location: "body.limit", message: "must be an integer (32 bit)" },
    ]);
    expect(checkJson(CreateRootKeyRequestSchema, { permissions: ["a.*.b", 5], expires: "1" }, options).map((v) => v.location))
      .toEqual(["body.permissions[1]", "body.expires"]);
  });
});
