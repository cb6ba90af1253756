import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { Violation } from "../../domain/errors.js";

const INT32_TYPES = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32_TYPES = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const INT64_TYPES = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64]);
const UINT64_TYPES = new Set([ScalarType.UINT64, ScalarType.FIXED64]);
// Standard or URL-safe base64, padding optional: what proto JSON accepts for bytes.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const FREE_FORM = new Set(["google.protobuf.Struct", "google.protobuf.Value"]);

/**
 * Checks a REST JSON body against a message schema more strictly than proto JSON does (no numbers as strings,
 * no unknown keys unless `allowUnknown`), collecting every problem with its location. `null` means "not set".
 */
export function checkJson(
  schema: DescMessage,
  value: unknown,
  options: { allowUnknown: boolean; prefix: string },
): Violation[] {
  const out: Violation[] = [];
  checkMessage(schema, value, options.prefix, options.allowUnknown, out);
  return out;
}

function checkMessage(schema: DescMessage, value: unknown, at: string, allowUnknown: boolean, out: Violation[]) {
  if (schema.typeName === "google.protobuf.FieldMask") {
    if (typeof value !== "string") out.push({ location: at, message: "must be a string of comma-separated field paths" });
    return;
  }
  if (FREE_FORM.has(schema.typeName)) {
    if (schema.typeName === "google.protobuf.Struct" && !isObject(value)) out.push({ location: at, message: "must be an object" });
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
      if (!allowUnknown) out.push({ location, message: "is not a known field" });
      continue;
    }
    if (fieldValue === null) continue;
    checkField(field, fieldValue, location, allowUnknown, out);
  }
}

function checkField(field: DescField, value: unknown, at: string, allowUnknown: boolean, out: Violation[]) {
  switch (field.fieldKind) {
    case "list":
      if (!Array.isArray(value)) return void out.push({ location: at, message: "must be an array" });
      value.forEach((item, i) => {
        const location = `${at}[${i}]`;
        if (field.listKind === "message") checkMessage(field.message, item, location, allowUnknown, out);
        else if (field.listKind === "scalar") checkScalar(field.scalar, item, location, out);
        else checkEnum(field.enum, item, location, out);
      });
      return;
    case "map":
      if (!isObject(value)) return void out.push({ location: at, message: "must be an object" });
      for (const [key, item] of Object.entries(value)) {
        const location = `${at}.${key}`;
        if (field.mapKind === "message") checkMessage(field.message, item, location, allowUnknown, out);
        else if (field.mapKind === "scalar") checkScalar(field.scalar, item, location, out);
      }
      return;
    case "message":
      return checkMessage(field.message, value, at, allowUnknown, out);
    case "enum":
      return checkEnum(field.enum, value, at, out);
    case "scalar":
      return checkScalar(field.scalar, value, at, out);
  }
}

function checkScalar(type: ScalarType, value: unknown, at: string, out: Violation[]) {
  if (type === ScalarType.STRING) {
    if (typeof value !== "string") out.push({ location: at, message: "must be a string" });
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
  } else if (typeof value !== "number" || !Number.isFinite(value)) {
    out.push({ location: at, message: "must be a number" });
  }
}

/** Proto JSON names an enum value by its name; anything else would fail later, inside the decoder. */
function checkEnum(schema: DescEnum, value: unknown, at: string, out: Violation[]) {
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
