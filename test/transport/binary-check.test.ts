import { fromBinary, fromJson, toBinary, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import { decodeProtoBinary } from "../../src/transport/binary-check.js";
import { sampleSchemas } from "./sample-schema.js";

const { sample } = sampleSchemas();

const VARINT = 0;
const BIT64 = 1;
const LEN = 2;
const GROUP_START = 3;
const GROUP_END = 4;
const BIT32 = 5;

/** A field's tag byte(s). */
const tag = (number: number, wireType: number) => varint((number << 3) | wireType);
const varint = (value: number): number[] => {
  const out: number[] = [];
  for (; value > 0x7f; value >>>= 7) out.push((value & 0x7f) | 0x80);
  out.push(value);
  return out;
};
const len = (number: number, payload: number[]) => [...tag(number, LEN), ...varint(payload.length), ...payload];
const bytes = (...parts: number[][]) => new Uint8Array(parts.flat());

/** The refusal decodeProtoBinary throws, as data. */
function refusal(input: Uint8Array): { message: string; violations: unknown[] } {
  try {
    decodeProtoBinary(sample, input);
  } catch (error) {
    expect(error).toBeInstanceOf(KeywardError);
    const { kind, message, violations } = error as KeywardError;
    expect(kind).toBe("invalid");
    return { message, violations };
  }
  throw new Error("decoded without complaint");
}

describe("decodeProtoBinary", () => {
  it("decodes a message of every field shape as fromBinary does", () => {
    const message = fromJson(sample, {
      text: "hello", flag: true, small: -5, big: "9007199254740993", unsignedBig: "18446744073709551615", ratio: 0.5, raw: "aGk=",
      color: "COLOR_RED", inner: { label: "x", count: 3 }, inners: [{ label: "y" }, { count: 4 }], bigs: [1, -2], tags: ["a", "b"],
      counts: { a: 1 }, byName: { b: { label: "z" } }, meta: { any: ["thing", 1, null, { deep: true }] }, anyValue: [1, "two"],
      colors: ["COLOR_RED", "COLOR_UNSPECIFIED"],
    } as JsonValue);
    const wire = toBinary(sample, message);
    expect(decodeProtoBinary(sample, wire)).toEqual(fromBinary(sample, wire));
  });

  it("reads repeated numbers and enums packed or one by one, as the protobuf rules allow", () => {
    const packed = bytes(len(11, [...varint(1), ...varint(2)]), len(17, [1, 0]));
    const unpacked = bytes(tag(11, VARINT), varint(1), tag(11, VARINT), varint(2), tag(17, VARINT), [1], tag(17, VARINT), [0]);
    for (const input of [packed, unpacked]) {
      expect(decodeProtoBinary(sample, input)).toMatchObject({ bigs: [1n, 2n], colors: [1, 0] });
    }
  });

  it("skips unknown field numbers of every wire type", () => {
    const input = bytes(
      tag(99, VARINT), varint(300), tag(100, BIT64), new Array(8).fill(1), len(101, [1, 2, 3]), tag(102, BIT32), [1, 2, 3, 4],
      tag(103, GROUP_START), tag(1, VARINT), [5], tag(103, GROUP_END), len(1, [...Buffer.from("kept")]),
    );
    expect(decodeProtoBinary(sample, input)).toMatchObject({ text: "kept" });
  });

  it("refuses a known field sent with another wire type, naming it by path and number (proto and JSON names)", () => {
    expect(refusal(bytes(tag(3, LEN), [1, 0x64]))).toEqual({
      message: "The request message is not a valid test.Sample: field small (3) has wire type LengthDelimited, expected Varint",
      violations: [{ location: "small", field: "small", message: "has wire type LengthDelimited, expected Varint" }],
    });
    expect(refusal(bytes(tag(5, BIT32), [0, 0, 0, 0])).violations).toEqual([
      { location: "unsignedBig", field: "unsigned_big", message: "has wire type Bit32, expected Varint" },
    ]);
    expect(refusal(bytes(tag(6, BIT32), [0, 0, 0, 0])).message).toMatch(/field ratio \(6\) has wire type Bit32, expected Bit64$/);
    expect(refusal(bytes(tag(1, VARINT), [5])).message).toMatch(/field text \(1\) has wire type Varint, expected LengthDelimited$/);
    expect(refusal(bytes(tag(9, VARINT), [5])).message).toMatch(/field inner \(9\) has wire type Varint, expected LengthDelimited$/);
    expect(refusal(bytes(tag(2, 7))).message).toMatch(/illegal tag: field no 2 wire type 7$/);
  });

  it("looks inside nested messages, list items and map entries, with the item's index", () => {
    const inners = bytes(len(10, len(1, [0x79])), len(10, [...tag(2, BIT64), ...new Array(8).fill(0)]));
    expect(refusal(inners)).toEqual({
      message: "The request message is not a valid test.Sample: field inners[1].count (2) has wire type Bit64, expected Varint",
      violations: [{ location: "inners[1].count", field: "inners[1].count", message: "has wire type Bit64, expected Varint" }],
    });
    const mapValue = bytes(len(13, [...len(1, [0x61]), ...len(2, [1])]));
    expect(refusal(mapValue).message).toMatch(/field counts\.value \(2\) has wire type LengthDelimited, expected Varint$/);
    const inStruct = bytes(len(15, len(1, [...len(1, [0x61]), ...len(2, [...tag(2, VARINT), 1])])));
    expect(refusal(inStruct).message).toMatch(/field meta\.fields\.value\.number_value \(2\) has wire type Varint, expected Bit64$/);
  });

  it("refuses a length running past its enclosing message, and nesting deeper than protobuf-es reads, without a stack overflow", () => {
    expect(refusal(bytes(len(9, [...tag(1, LEN), 5, 0x61]))).message).toMatch(/premature EOF$/);
    // Value{list_value (6): ListValue{values (1): Value{...}}}, 300 deep, around a number.
    let value = [...tag(2, BIT64), ...new Array(8).fill(0)];
    for (let depth = 0; depth < 300; depth++) value = len(6, len(1, value));
    expect(refusal(bytes(len(16, value))).message).toMatch(/maximum recursion depth/);
  });
});
