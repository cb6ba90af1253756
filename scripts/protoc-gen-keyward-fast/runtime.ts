// The runtime of the codecs protoc-gen-keyward-fast emits: a reader that gives up (throws BAIL) on anything it does
// not read exactly as protobuf-es's fromBinary would, and a writer over one reused buffer that writes what toBinary
// writes, byte for byte. The plugin copies this file into gen/ beside the codecs; edit it here, then `npm run generate`.
import { protoInt64, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { getTextEncoding } from "@bufbuild/protobuf/wire";

/**
 * A finite number's JSON text, as String writes it, but not through V8's number-string cache: String and template
 * literals put the text of any number but a small integer into that cache, allocated straight in the old
 * generation. A verification's balance, remaining limit and latency are new numbers each time, so every one left
 * old-generation garbage and mark-compacts came every ~2 s under load. JSON.stringify writes the same digits into a
 * young string (and "null" for NaN and the infinities, as JSON does).
 */
export function numberText(n: number): string {
  if (n > -1024 && n < 1024 && Number.isInteger(n)) return "" + n;
  // JSON.stringify is a call into the runtime (~60 ns for an integer); a limit, a duration or a window's reset time
  // repeats request after request, so recent texts are kept by value in a small direct-mapped table.
  const low = n | 0;
  const slot = (low ^ (low >>> 7) ^ (low >>> 13)) & (TEXT_SLOTS - 1);
  if (slotValues[slot] === n) return slotTexts[slot];
  const text = JSON.stringify(n);
  slotValues[slot] = n;
  slotTexts[slot] = text;
  return text;
}

const TEXT_SLOTS = 64;
// NaN matches no value, so an empty slot is never taken for a hit.
const slotValues = new Float64Array(TEXT_SLOTS).fill(NaN);
const slotTexts: string[] = new Array<string>(TEXT_SLOTS).fill("");

/** Thrown by the reader where the fast path stops; the decode entry answers undefined and the caller uses fromBinary. */
export const BAIL = new Error("not on the fast path");

/** fromBinary's nesting limit: a message deeper than this is left to it (it refuses). */
export const MAX_DEPTH = 100;

const f64 = new Float64Array(1);
const f32 = new Float32Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const f32Bytes = new Uint8Array(f32.buffer);
// The scratch arrays are read byte by byte in wire order (little-endian); a big-endian host goes through DataView.
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const dataView = new DataView(new ArrayBuffer(8));

/** Reads the wire format by index; each method moves `pos` past one value or throws BAIL. */
export class FastReader {
  buf: Uint8Array = new Uint8Array(0);
  pos = 0;

  /** A tag as its raw varint (field number << 3 | wire type), read canonically in at most 5 bytes. */
  tag(): number {
    const buf = this.buf;
    const b = buf[this.pos];
    if (b !== undefined && b < 0x80) {
      this.pos++;
      return b;
    }
    return this.varint32();
  }

  /** A varint of at most 5 bytes whose value fits 32 bits (lengths and tags); anything else bails. */
  varint32(): number {
    const buf = this.buf;
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = buf[this.pos++];
      if (b === undefined) throw BAIL;
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (result > 0xffffffff) throw BAIL;
        return result;
      }
    }
    throw BAIL;
  }

  /** The end of a length-delimited value that starts here; bails when it runs past the buffer. */
  end(): number {
    const length = this.varint32();
    const end = this.pos + length;
    if (end > this.buf.length) throw BAIL;
    return end;
  }

  // A 64-bit varint as two 32-bit halves, the way protobuf-es reads it (bits past 64 dropped, 10 bytes at most).
  lo = 0;
  hi = 0;
  varint64(): void {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      b = buf[this.pos++];
      if (b === undefined) throw BAIL;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) return this.set64(lo, hi);
    }
    b = buf[this.pos++];
    if (b === undefined) throw BAIL;
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x70) >> 4;
    if (b < 0x80) return this.set64(lo, hi);
    for (let shift = 3; shift <= 31; shift += 7) {
      b = buf[this.pos++];
      if (b === undefined) throw BAIL;
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) return this.set64(lo, hi);
    }
    throw BAIL;
  }

  private set64(lo: number, hi: number): void {
    this.lo = lo;
    this.hi = hi;
  }

  int32(): number {
    this.varint64();
    return this.lo | 0;
  }

  uint32(): number {
    this.varint64();
    return this.lo >>> 0;
  }

  sint32(): number {
    const n = this.uint32();
    return (n >>> 1) ^ -(n & 1);
  }

  bool(): boolean {
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  int64(): bigint {
    this.varint64();
    // Below 2^31 in the high half the value is a non-negative safe integer: no BigInt arithmetic needed.
    if (this.hi >= 0 && this.hi < 0x200000) return BigInt(this.hi * 0x100000000 + (this.lo >>> 0));
    return protoInt64.dec(this.lo, this.hi) as bigint;
  }

  uint64(): bigint {
    this.varint64();
    if (this.hi >= 0 && this.hi < 0x200000) return BigInt(this.hi * 0x100000000 + (this.lo >>> 0));
    return protoInt64.uDec(this.lo, this.hi) as bigint;
  }

  sint64(): bigint {
    this.varint64();
    const { lo, hi } = this;
    // zig-zag over the 64-bit pair, as protobuf-es does it
    const mask = -(lo & 1);
    const l = (((lo >>> 1) | (hi << 31)) ^ mask) | 0;
    const h = ((hi >>> 1) ^ mask) | 0;
    return protoInt64.dec(l, h) as bigint;
  }

  fixed32(): number {
    return this.bit32() >>> 0;
  }

  sfixed32(): number {
    return this.bit32() | 0;
  }

  private bit32(): number {
    const buf = this.buf;
    const p = this.pos;
    if (p + 4 > buf.length) throw BAIL;
    this.pos = p + 4;
    return buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24);
  }

  fixed64(): bigint {
    const lo = this.bit32();
    const hi = this.bit32();
    return protoInt64.uDec(lo, hi) as bigint;
  }

  sfixed64(): bigint {
    const lo = this.bit32();
    const hi = this.bit32();
    return protoInt64.dec(lo, hi) as bigint;
  }

  double(): number {
    const buf = this.buf;
    const p = this.pos;
    if (p + 8 > buf.length) throw BAIL;
    this.pos = p + 8;
    if (!LITTLE_ENDIAN) return new DataView(buf.buffer, buf.byteOffset + p, 8).getFloat64(0, true);
    for (let i = 0; i < 8; i++) f64Bytes[i] = buf[p + i];
    return f64[0];
  }

  float(): number {
    const buf = this.buf;
    const p = this.pos;
    if (p + 4 > buf.length) throw BAIL;
    this.pos = p + 4;
    if (!LITTLE_ENDIAN) return new DataView(buf.buffer, buf.byteOffset + p, 4).getFloat32(0, true);
    for (let i = 0; i < 4; i++) f32Bytes[i] = buf[p + i];
    return f32[0];
  }

  /** A view into the input, as protobuf-es's reader returns it. */
  bytes(): Uint8Array {
    const end = this.end();
    const start = this.pos;
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /** UTF-8, refused (bail) where protobuf-es's strict decoding refuses; short ASCII without a TextDecoder call. */
  string(): string {
    const end = this.end();
    const buf = this.buf;
    const start = this.pos;
    this.pos = end;
    if (end - start <= 64) {
      let text = "";
      for (let i = start; i < end; i++) {
        const c = buf[i];
        if (c >= 0x80) return getTextEncoding().decodeUtf8(buf.subarray(start, end), true);
        text += String.fromCharCode(c);
      }
      return text;
    }
    return getTextEncoding().decodeUtf8(buf.subarray(start, end), true);
  }
}

const reader = new FastReader();

/**
 * Runs a generated message decoder over `bytes`: the message, or undefined when the input is off the fast path
 * (malformed, an unknown field, a wire type the field does not have, a repeated singular message, too deep). The
 * reader is shared: decoding is synchronous and never re-entered.
 */
export function runDecode<T>(bytes: Uint8Array, decode: (r: FastReader, end: number, depth: number) => T): T | undefined {
  reader.buf = bytes;
  reader.pos = 0;
  try {
    return decode(reader, bytes.length, 1);
  } catch {
    return undefined;
  } finally {
    reader.buf = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);
const textEncoder = new TextEncoder();
const KEEP_BYTES = 64 * 1024;

/**
 * Writes the wire format into one growing buffer. A length-delimited value gets one byte reserved for its length
 * (`fork`); `join` widens it in place when the value turned out longer than 127 bytes.
 */
export class FastWriter {
  buf = new Uint8Array(4096);
  pos = 0;

  ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }

  /** A non-negative integer below 2^53 as a varint (tags, lengths, uint32, safe int64). */
  varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    let p = this.pos;
    while (value > 0x7f) {
      buf[p++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    buf[p++] = value;
    this.pos = p;
  }

  /** A 64-bit value as two 32-bit halves (two's complement), as protobuf-es writes int64 and negative int32. */
  varint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let p = this.pos;
    lo >>>= 0;
    hi >>>= 0;
    while (hi > 0 || lo > 0x7f) {
      buf[p++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[p++] = lo;
    this.pos = p;
  }

  int32(value: number): void {
    if (value >= 0) this.varint(value);
    else this.varint64(value, -1);
  }

  sint32(value: number): void {
    this.varint(((value << 1) ^ (value >> 31)) >>> 0);
  }

  bool(value: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
  }

  int64(value: bigint | number | string): void {
    if (typeof value === "bigint" && value >= 0n && value <= 0x1fffffffffffffn) return this.varint(Number(value));
    const { lo, hi } = protoInt64.enc(value);
    this.varint64(lo, hi);
  }

  uint64(value: bigint | number | string): void {
    if (typeof value === "bigint" && value >= 0n && value <= 0x1fffffffffffffn) return this.varint(Number(value));
    const { lo, hi } = protoInt64.uEnc(value);
    this.varint64(lo, hi);
  }

  sint64(value: bigint | number | string): void {
    const { lo, hi } = protoInt64.enc(value);
    const sign = hi >> 31;
    this.varint64((lo << 1) ^ sign, ((hi << 1) | (lo >>> 31)) ^ sign);
  }

  fixed32(value: number): void {
    this.ensure(4);
    const buf = this.buf;
    const p = this.pos;
    buf[p] = value;
    buf[p + 1] = value >>> 8;
    buf[p + 2] = value >>> 16;
    buf[p + 3] = value >>> 24;
    this.pos = p + 4;
  }

  fixed64(value: bigint | number | string): void {
    const { lo, hi } = protoInt64.uEnc(value);
    this.fixed32(lo);
    this.fixed32(hi);
  }

  sfixed64(value: bigint | number | string): void {
    const { lo, hi } = protoInt64.enc(value);
    this.fixed32(lo);
    this.fixed32(hi);
  }

  double(value: number): void {
    this.ensure(8);
    if (!LITTLE_ENDIAN) {
      dataView.setFloat64(0, value, true);
      for (let i = 0; i < 8; i++) this.buf[this.pos++] = dataView.getUint8(i);
      return;
    }
    f64[0] = value;
    this.buf.set(f64Bytes, this.pos);
    this.pos += 8;
  }

  float(value: number): void {
    this.ensure(4);
    if (!LITTLE_ENDIAN) {
      dataView.setFloat32(0, value, true);
      for (let i = 0; i < 4; i++) this.buf[this.pos++] = dataView.getUint8(i);
      return;
    }
    f32[0] = value;
    this.buf.set(f32Bytes, this.pos);
    this.pos += 4;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.byteLength);
    this.ensure(value.byteLength);
    this.buf.set(value, this.pos);
    this.pos += value.byteLength;
  }

  /** UTF-8 as TextEncoder writes it (a lone surrogate becomes U+FFFD); ASCII is copied without an encoder call. */
  string(value: string): void {
    const length = value.length;
    this.ensure(length + 5);
    const buf = this.buf;
    if (length < 0x80) {
      let p = this.pos + 1;
      for (let i = 0; i < length; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) return this.utf8(value);
        buf[p++] = c;
      }
      buf[this.pos] = length;
      this.pos = p;
      return;
    }
    this.utf8(value);
  }

  private utf8(value: string): void {
    this.bytes(textEncoder.encode(value));
  }

  /** Starts a length-delimited value: returns where its (one-byte, for now) length goes. */
  fork(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the value started at `at`, writing its length there and moving the value if the length needs more bytes. */
  join(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    let size = 1;
    for (let rest = length >>> 7; rest > 0; rest >>>= 7) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = at;
    this.varint(length);
    this.pos = end;
  }

  /** The fields protobuf-es kept as unknown, written after the known ones as toBinary writes them. */
  unknown(fields: readonly { no: number; wireType: number; data: Uint8Array }[] | undefined): void {
    if (fields === undefined) return;
    for (const field of fields) {
      this.varint(((field.no << 3) | field.wireType) >>> 0);
      this.ensure(field.data.byteLength);
      this.buf.set(field.data, this.pos);
      this.pos += field.data.byteLength;
    }
  }

  /**
   * A google.protobuf.Struct held as a JsonObject (how protobuf-es represents it in a field): the entries protobuf-es
   * would make of it, in its key order. `__proto__` is left out as protobuf-es's conversion loses it.
   */
  jsonStruct(json: JsonObject): void {
    for (const key of Object.keys(json)) {
      if (key === "__proto__") continue;
      this.varint(10); // fields: map<string, Value>, field 1
      const entry = this.fork();
      this.varint(10);
      this.string(key);
      this.varint(18);
      const value = this.fork();
      this.jsonValue(json[key]);
      this.join(value);
      this.join(entry);
    }
  }

  /** The fields of a google.protobuf.Value made from a JSON value. */
  private jsonValue(json: JsonValue | undefined): void {
    switch (typeof json) {
      case "number":
        this.varint(17); // number_value = 2, fixed64
        this.double(json);
        return;
      case "string":
        this.varint(26); // string_value = 3
        this.string(json);
        return;
      case "boolean":
        this.varint(32); // bool_value = 4
        this.bool(json);
        return;
      case "object": {
        if (json === null) {
          this.varint(8); // null_value = 1
          this.varint(0);
          return;
        }
        if (Array.isArray(json)) {
          this.varint(50); // list_value = 6
          const list = this.fork();
          for (const item of json) {
            this.varint(10); // values = 1
            const value = this.fork();
            this.jsonValue(item);
            this.join(value);
          }
          this.join(list);
          return;
        }
        this.varint(42); // struct_value = 5
        const struct = this.fork();
        this.jsonStruct(json);
        this.join(struct);
        return;
      }
    }
  }

  /**
   * The bytes written, copied out into `alloc(size)` (a pooled Node Buffer, say) or a new Uint8Array; an oversized
   * scratch buffer is let go.
   */
  finish(alloc?: (size: number) => Uint8Array): Uint8Array {
    const size = this.pos;
    const buf = this.buf;
    const out = alloc === undefined ? new Uint8Array(size) : alloc(size);
    // A short copy by hand costs less than the view `set` would need.
    if (size <= 256) for (let i = 0; i < size; i++) out[i] = buf[i];
    else out.set(buf.subarray(0, size));
    if (buf.length > KEEP_BYTES) this.buf = new Uint8Array(4096);
    return out;
  }
}

const writer = new FastWriter();

/** A message type's generated codec, as the file's `fastCodecs` list holds it. */
export interface FastCodec {
  schema: DescMessage;
  encode: (message: never, reserve?: number, alloc?: Allocate) => Uint8Array;
  decode: (bytes: Uint8Array) => object | undefined;
  /** From parsed REST JSON as checkJson (REST dialect) and fromJson take it, or undefined: take that path. */
  json: (value: unknown, allowUnknown: boolean) => object | undefined;
  /** A message or init object as REST JSON (rest-json.ts's object), or undefined: build it there. */
  restJson: (message: object) => Record<string, unknown> | undefined;
  /** `JSON.stringify` of `restJson`'s object, written directly; undefined exactly where `restJson` is. */
  restJsonText: (message: object) => string | undefined;
  /**
   * True only where protovalidate finds no violation in the message; false means "ask protovalidate". Absent where
   * the type has rules the generator does not check itself.
   */
  valid?: (message: never) => boolean;
}

/** A string's length in code points, as protovalidate counts it for min_len / max_len (a lone surrogate is one). */
export function codepoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Where an encoder's output goes: a buffer of `size` bytes (default: a new Uint8Array). */
export type Allocate = (size: number) => Uint8Array;

/**
 * Runs a generated message encoder: the message's bytes after `reserve` bytes left free at the front (a frame header,
 * for one; their content is unspecified). The writer is shared: encoding is synchronous and never re-entered.
 */
export function runEncode<T>(message: T, reserve: number, alloc: Allocate | undefined, encode: (w: FastWriter, message: T) => void): Uint8Array {
  writer.pos = 0;
  writer.ensure(reserve);
  writer.pos = reserve;
  try {
    encode(writer, message);
    return writer.finish(alloc);
  } finally {
    writer.pos = 0;
  }
}

interface StructMessage {
  fields: Record<string, ValueMessage>;
}
interface ValueMessage {
  kind: { case: string | undefined; value?: unknown };
}

/** A decoded google.protobuf.Struct as the JsonObject protobuf-es puts in a field. */
export function structToJson(struct: StructMessage): JsonObject {
  const json: JsonObject = {};
  for (const [key, value] of Object.entries(struct.fields)) json[key] = valueToJson(value);
  return json;
}

function valueToJson(value: ValueMessage): JsonValue {
  switch (value.kind.case) {
    case "structValue":
      return structToJson(value.kind.value as StructMessage);
    case "listValue":
      return (value.kind.value as { values: ValueMessage[] }).values.map(valueToJson);
    case "nullValue":
    case undefined:
      return null;
    default:
      return value.kind.value as JsonValue;
  }
}
