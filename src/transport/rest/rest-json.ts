import { ScalarType, toJson, type DescMessage, type Message } from "@bufbuild/protobuf";

const INT64_TYPES = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64, ScalarType.UINT64, ScalarType.FIXED64]);

/**
 * Proto JSON of a response as REST sends it: implicit fields always present, and 64-bit integers as JSON numbers
 * (protobuf-es writes them as strings). Values beyond 2^53 would lose precision, so they are an error.
 */
export function toRestJson(schema: DescMessage, message: Message): Record<string, unknown> {
  const json = toJson(schema, message, { alwaysEmitImplicit: true }) as Record<string, unknown>;
  numberify(schema, json);
  return json;
}

function numberify(schema: DescMessage, json: Record<string, unknown>): void {
  for (const field of schema.fields) {
    const value = json[field.jsonName];
    if (value === undefined || value === null) continue;
    if (field.fieldKind === "scalar" && INT64_TYPES.has(field.scalar)) {
      json[field.jsonName] = toSafeNumber(value);
    } else if (field.fieldKind === "list" && field.listKind === "scalar" && INT64_TYPES.has(field.scalar)) {
      json[field.jsonName] = (value as unknown[]).map(toSafeNumber);
    } else if (field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf.")) {
      numberify(field.message, value as Record<string, unknown>);
    } else if (field.fieldKind === "list" && field.listKind === "message" && !field.message.typeName.startsWith("google.protobuf.")) {
      for (const item of value as Record<string, unknown>[]) numberify(field.message, item);
    } else if (field.fieldKind === "map" && field.mapKind === "scalar" && INT64_TYPES.has(field.scalar)) {
      const map = value as Record<string, unknown>;
      for (const key of Object.keys(map)) map[key] = toSafeNumber(map[key]);
    } else if (field.fieldKind === "map" && field.mapKind === "message" && !field.message.typeName.startsWith("google.protobuf.")) {
      for (const item of Object.values(value as Record<string, Record<string, unknown>>)) numberify(field.message, item);
    }
  }
}

function toSafeNumber(value: unknown): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`64-bit value ${String(value)} exceeds 2^53 and cannot be sent as JSON number`);
  return n;
}
