import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { Value } from "@bufbuild/protobuf/wkt";
import type { Violation } from "../domain/errors.js";
import { freeFormViolations, MAX_FREE_FORM_DEPTH } from "../domain/json-limits.js";

const FREE_FORM = new Set(["google.protobuf.Struct", "google.protobuf.Value"]);

const cache = new WeakMap<DescMessage, DescField[] | null>();

/**
 * json-limits.ts applied to the free-form values of a decoded message, whatever the wire: binary protobuf can carry
 * a Struct nested past any store's limit or a Value of Infinity, which JSON bodies are refused for before decoding.
 * Locations are JSON names (`meta.a.b`). Messages without free-form fields (verification) cost one map lookup.
 */
export function freeFormViolationsOf(schema: DescMessage, message: object): readonly Violation[] {
  let fields = cache.get(schema);
  if (fields === undefined) cache.set(schema, (fields = freeFormPaths(schema) ?? null));
  return fields === null ? NONE : checkFreeForm(message as Record<string, unknown>, fields, "");
}

/** The answer for a message without free-form fields (every verification): one list, never written to. */
const NONE: readonly Violation[] = Object.freeze([]);

/** The fields of `schema` (and of its nested messages) that lead to free-form JSON, or undefined when none does. */
function freeFormPaths(schema: DescMessage, seen = new Set<string>()): DescField[] | undefined {
  if (seen.has(schema.typeName)) return undefined;
  seen.add(schema.typeName);
  const fields = schema.fields.filter((field) => {
    const message = field.message;
    return message !== undefined && (FREE_FORM.has(message.typeName) || freeFormPaths(message, seen) !== undefined);
  });
  return fields.length > 0 ? fields : undefined;
}

function checkFreeForm(message: Record<string, unknown>, fields: DescField[], at: string): Violation[] {
  for (const field of fields) {
    const value = message[field.localName];
    if (value === undefined || value === null) continue;
    const location = at ? `${at}.${field.jsonName}` : field.jsonName;
    const items = field.fieldKind === "list" ? (value as unknown[]) : field.fieldKind === "map" ? Object.values(value as object) : [value];
    for (const item of items) {
      const target = field.message as DescMessage;
      const found = target.typeName === "google.protobuf.Struct" ? freeFormViolations(item, location)
        : target.typeName === "google.protobuf.Value" ? valueViolations(item as Value, location)
          : checkFreeForm(item as Record<string, unknown>, freeFormPaths(target) ?? [], location);
      if (found.length > 0) return found;
    }
  }
  return [];
}

/** protobuf-es holds a Struct field as its JSON object, but a Value field as a Value message: made plain JSON first. */
function valueViolations(value: Value, at: string): Violation[] {
  try {
    return freeFormViolations(plain(value, 1), at);
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    return [{ location: at, message: `nests deeper than ${MAX_FREE_FORM_DEPTH} levels` }];
  }
}

const TOO_DEEP = new Error("too deep");

function plain(value: Value, depth: number): unknown {
  if (depth > MAX_FREE_FORM_DEPTH + 1) throw TOO_DEEP;
  const { kind } = value;
  switch (kind.case) {
    case "structValue":
      return Object.fromEntries(Object.entries(kind.value.fields).map(([key, item]) => [key, plain(item, depth + 1)]));
    case "listValue":
      return kind.value.values.map((item) => plain(item, depth + 1));
    case "numberValue": case "stringValue": case "boolValue":
      return kind.value;
    default:
      return null;
  }
}
