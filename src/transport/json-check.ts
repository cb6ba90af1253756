import { fromJson, ScalarType, type DescEnum, type DescField, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { invalid, type Violation } from "../domain/errors.js";
import { freeFormViolations, isWellFormed, KEY_NOT_WELL_FORMED, WELL_FORMED } from "../domain/json-limits.js";

const INT32_TYPES = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32_TYPES = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const INT64_TYPES = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64]);
const UINT64_TYPES = new Set([ScalarType.UINT64, ScalarType.FIXED64]);
// Standard or URL-safe base64, padding optional: what proto JSON accepts for bytes.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const FREE_FORM = new Set(["google.protobuf.Struct", "google.protobuf.Value"]);
const DECIMAL = /^-?\d{1,20}$/;
// Proto JSON's float strings: a decimal number, or the special values.
const PROTO_FLOAT = /^(-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|NaN|-?Infinity)$/;

/**
 * How a JSON body is read. `rest`: REST's contract, stricter than proto JSON (no numbers as strings, `null` refused
 * where a field is not nullable — update masks turn their nulls into "clear" before this check). `proto`: proto JSON
 * as Connect and gRPC+json read it (numbers may be strings, `null` means "not set"), minus protobuf-es' leniency of
 * reading `" "` or `"0x1F"` as integers.
 */
export type JsonDialect = "rest" | "proto";

export interface CheckJsonOptions {
  /** Unknown keys are ignored (v1 REST, proto JSON) rather than refused. */
  allowUnknown: boolean;
  prefix: string;
  dialect?: JsonDialect;
}

/**
 * Checks a JSON body against a message schema, collecting every problem with its location, so that the decoder
 * after it never fails and a client always learns which field is wrong. Free-form values (Struct, Value) are held to
 * json-limits.ts; every string must be valid Unicode.
 */
export function checkJson(schema: DescMessage, value: unknown, options: CheckJsonOptions): Violation[] {
  const out: Violation[] = [];
  const rules: Rules = { allowUnknown: options.allowUnknown, proto: options.dialect === "proto" };
  checkMessage(schema, value, options.prefix, rules, out);
  return out;
}

interface Rules {
  allowUnknown: boolean;
  proto: boolean;
}

function checkMessage(schema: DescMessage, value: unknown, at: string, rules: Rules, out: Violation[]) {
  if (schema.typeName === "google.protobuf.FieldMask") {
    if (typeof value !== "string") out.push({ location: at, message: "must be a string of comma-separated field paths" });
    return;
  }
  if (FREE_FORM.has(schema.typeName)) {
    if (schema.typeName === "google.protobuf.Struct" && !isObject(value)) out.push({ location: at, message: "must be an object" });
    else out.push(...freeFormViolations(value, at));
    return;
  }
  if (!isObject(value)) {
    out.push({ location: at, message: "must be an object" });
    return;
  }
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    const location = at ? `${at}.${key}` : key;
    if (!field) {
      if (rules.allowUnknown) continue;
      out.push(isWellFormed(key) ? { location, message: "is not a known field" } : { location: at, message: KEY_NOT_WELL_FORMED });
      continue;
    }
    if (fieldValue === null) {
      if (!rules.proto) out.push({ location, message: "must not be null; leave the field out instead" });
      continue;
    }
    checkField(field, fieldValue, location, rules, out);
  }
}

function checkField(field: DescField, value: unknown, at: string, rules: Rules, out: Violation[]) {
  switch (field.fieldKind) {
    case "list":
      if (!Array.isArray(value)) return void out.push({ location: at, message: "must be an array" });
      value.forEach((item, i) => {
        const location = `${at}[${i}]`;
        if (field.listKind === "message") checkMessage(field.message, item, location, rules, out);
        else if (field.listKind === "scalar") checkScalar(field.scalar, item, location, rules, out);
        else checkEnum(field.enum, item, location, rules, out);
      });
      return;
    case "map":
      if (!isObject(value)) return void out.push({ location: at, message: "must be an object" });
      for (const [key, item] of Object.entries(value)) {
        if (!isWellFormed(key)) {
          out.push({ location: at, message: KEY_NOT_WELL_FORMED });
          continue;
        }
        const location = `${at}.${key}`;
        if (field.mapKind === "message") checkMessage(field.message, item, location, rules, out);
        else if (field.mapKind === "scalar") checkScalar(field.scalar, item, location, rules, out);
        else checkEnum(field.enum, item, location, rules, out);
      }
      return;
    case "message":
      return checkMessage(field.message, value, at, rules, out);
    case "enum":
      return checkEnum(field.enum, value, at, rules, out);
    case "scalar":
      return checkScalar(field.scalar, value, at, rules, out);
  }
}

function checkScalar(type: ScalarType, value: unknown, at: string, rules: Rules, out: Violation[]) {
  // Proto JSON may write any number as a string; integers then as plain decimals only.
  if (rules.proto && typeof value === "string" && type !== ScalarType.STRING && type !== ScalarType.BYTES && type !== ScalarType.BOOL) {
    if (type === ScalarType.DOUBLE || type === ScalarType.FLOAT) {
      if (!PROTO_FLOAT.test(value)) out.push({ location: at, message: "must be a number" });
      return;
    }
    if (!DECIMAL.test(value)) return void out.push({ location: at, message: "must be an integer (a string holds decimal digits only)" });
    value = INT64_TYPES.has(type) || UINT64_TYPES.has(type) ? safeBigInt(value) : Number(value);
    if (typeof value === "bigint") return checkBigInt(type, value, at, out);
  }
  if (type === ScalarType.STRING) {
    if (typeof value !== "string") out.push({ location: at, message: "must be a string" });
    else if (!isWellFormed(value)) out.push({ location: at, message: WELL_FORMED });
  } else if (type === ScalarType.BYTES) {
    if (typeof value !== "string" || !BASE64.test(value)) out.push({ location: at, message: "must be a base64 string" });
  } else if (type === ScalarType.BOOL) {
    if (typeof value !== "boolean") out.push({ location: at, message: "must be a boolean" });
  } else if (INT32_TYPES.has(type)) {
    if (!isIntegerIn(value, -(2 ** 31), 2 ** 31 - 1)) out.push({ location: at, message: "must be an integer (32 bit)" });
  } else if (UINT32_TYPES.has(type)) {
    if (!isIntegerIn(value, 0, 2 ** 32 - 1)) out.push({ location: at, message: "must be a non-negative integer (32 bit)" });
  } else if (INT64_TYPES.has(type)) {
    if (!Number.isSafeInteger(value)) out.push({ location: at, message: "must be an integer below 2^53" });
  } else if (UINT64_TYPES.has(type)) {
    if (!isIntegerIn(value, 0, Number.MAX_SAFE_INTEGER)) out.push({ location: at, message: "must be a non-negative integer below 2^53" });
  } else if (typeof value !== "number" || (!Number.isFinite(value) && !rules.proto)) {
    out.push({ location: at, message: "must be a number" });
  }
}

/** A 64-bit integer written as a string in proto JSON: the whole 64-bit range, as protobuf-es reads it. */
function checkBigInt(type: ScalarType, value: bigint, at: string, out: Violation[]) {
  const [min, max] = UINT64_TYPES.has(type) ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
  if (value < min || value > max) out.push({ location: at, message: `must be an integer from ${min} to ${max}` });
}

function safeBigInt(text: string): bigint | number {
  const n = BigInt(text);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** REST names an enum value by its name; proto JSON also by its number. */
function checkEnum(schema: DescEnum, value: unknown, at: string, rules: Rules, out: Violation[]) {
  if (rules.proto && Number.isInteger(value) && schema.values.some((v) => v.number === value)) return;
  if (typeof value !== "string" || !schema.values.some((v) => v.name === value)) {
    out.push({ location: at, message: `must be one of ${schema.values.map((v) => v.name).join(", ")}` });
  }
}

function isIntegerIn(value: unknown, min: number, max: number): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A message from proto JSON text, as Connect and gRPC+json send it: the text parsed, checked by `checkJson` in the
 * proto dialect (unknown fields ignored, as connect-node does), then decoded. Every refusal is `invalid`, naming
 * the fields.
 */
export function decodeProtoJson<Desc extends DescMessage>(schema: Desc, text: string): MessageShape<Desc> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(`The request body is not valid JSON: ${(error as Error).message}`, [{ location: "", message: "not valid JSON" }]);
  }
  return decodeCheckedJson(schema, json, { allowUnknown: true, prefix: "", dialect: "proto", name: (location) => location || "message" });
}

/**
 * `json` held to `checkJson`, then decoded; every refusal is `invalid`, its detail naming each place as `name(location)`
 * says (`body.name`, `meta.a`).
 */
export function decodeCheckedJson<Desc extends DescMessage>(
  schema: Desc,
  json: unknown,
  options: CheckJsonOptions & { name: (location: string) => string },
): MessageShape<Desc> {
  const violations = checkJson(schema, json, options);
  if (violations.length > 0) throw invalid(violations.map((v) => `${options.name(v.location)}: ${v.message}`).join("; "), violations);
  try {
    return fromJson(schema, json as JsonValue, { ignoreUnknownFields: options.allowUnknown });
  } catch (error) {
    // checkJson lets nothing through that the decoder refuses; should the two ever disagree, it is still the client's
    // input that failed. protobuf-es names the field before " from JSON" and may quote the value after it, which is
    // not echoed (it could be a key sent in the wrong field).
    const what = (error as Error).message.split(" from JSON", 1)[0];
    throw invalid(`${options.name("")}: ${what}`, [{ location: "", message: what }]);
  }
}
