import { getOption, ScalarType, toJson, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence as Presence } from "@bufbuild/protobuf/wkt";
import { field as fieldRulesOption, FieldRulesSchema } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** Which side of an exchange a schema describes: requests carry the field rules, responses what REST always emits. */
export type Side = "request" | "response";

/** The schemas of one document: nested messages become named components, built once per side. */
export interface SchemaRegistry {
  components: Record<string, JsonSchema>;
  /** Which message and side each component name stands for (a name must not stand for two). */
  owners: Map<string, string>;
  /** Whether a request may carry fields the schema does not name (v1 ignores them, v2 refuses them). */
  openRequests: boolean;
  /** Proto comments by full name (proto-comments.ts), written as descriptions. */
  comments: Map<string, string>;
  /** Rules across the fields of a message's request JSON that field rules cannot state, by message type name. */
  requestRules?: Record<string, JsonSchema>;
}

type RulesJson = Record<string, any>;

const INT64 = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64]);
const UINT64 = new Set([ScalarType.UINT64, ScalarType.FIXED64]);
const UINT32 = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const STRUCT = "google.protobuf.Struct";

/**
 * The inline JSON schema of a message as REST reads (`request`) or writes (`response`) it: JSON names, 64-bit
 * integers as numbers within ±2^53, protovalidate rules as constraints. A request field is required when its zero
 * value breaks its rules (an absent implicit field reads as zero); a response field is required when REST always
 * emits it (implicit scalars, lists, maps). `omit` leaves fields out; messages with an update mask take null for
 * "clear" and do not list the mask, which REST derives from the body.
 */
export function messageSchema(registry: SchemaRegistry, message: DescMessage, side: Side, options: { omit?: string[] } = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const masked = side === "request" && message.fields.some(isUpdateMask);
  for (const field of message.fields) {
    if (options.omit?.includes(field.jsonName) || (side === "request" && isUpdateMask(field))) continue;
    let schema = described(fieldSchema(registry, field, side), registry.comments.get(`${message.typeName}.${field.name}`));
    const isRequired = side === "request" ? zeroBreaksRules(field) : alwaysEmitted(field);
    if (masked && !isRequired) schema = nullable(schema);
    properties[field.jsonName] = schema;
    if (isRequired) required.push(field.jsonName);
  }
  const schema: JsonSchema = described({ type: "object", properties }, registry.comments.get(message.typeName));
  if (required.length > 0) schema.required = required;
  if (side === "response" || !registry.openRequests) schema.additionalProperties = false;
  return side === "request" ? { ...schema, ...registry.requestRules?.[message.typeName] } : schema;
}

/** A `$ref` to the named component of a message (built on first use). */
export function messageRef(registry: SchemaRegistry, message: DescMessage, side: Side): JsonSchema {
  if (message.typeName === STRUCT) return { type: "object", description: "Free-form JSON object." };
  if (message.typeName === "google.protobuf.Value") return { description: "Any JSON value." };
  if (message.typeName === "google.protobuf.FieldMask") return { type: "string" };
  const name = side === "response" || message.name.endsWith("Request") ? message.name : `${message.name}Input`;
  const owner = `${message.typeName} (${side})`;
  const holder = registry.owners.get(name);
  if (holder !== undefined && holder !== owner) throw new Error(`Component ${name} would name both ${holder} and ${owner}`);
  if (holder === undefined) {
    registry.owners.set(name, owner);
    registry.components[name] = {}; // reserves the name while a recursive message is being built
    registry.components[name] = messageSchema(registry, message, side);
  }
  return { $ref: `#/components/schemas/${name}` };
}

/** The schema of one field, rules included on the request side. */
export function fieldSchema(registry: SchemaRegistry, field: DescField, side: Side): JsonSchema {
  const rules = side === "request" ? rulesOf(field) : {};
  switch (field.fieldKind) {
    case "list": {
      const items = field.listKind === "message" ? messageRef(registry, field.message, side)
        : field.listKind === "enum" ? { type: "string", enum: field.enum.values.map((v) => v.name) }
          : scalarSchema(field.scalar, rules.repeated?.items ?? {});
      return { type: "array", items, ...itemCounts(rules.repeated) };
    }
    case "map": {
      const values = field.mapKind === "message" ? messageRef(registry, field.message, side)
        : field.mapKind === "enum" ? { type: "string", enum: field.enum.values.map((v) => v.name) }
          : scalarSchema(field.scalar, {});
      return { type: "object", additionalProperties: values };
    }
    case "message":
      return messageRef(registry, field.message, side);
    case "enum":
      return { type: "string", enum: field.enum.values.map((v) => v.name) };
    case "scalar":
      return scalarSchema(field.scalar, rules);
  }
}

/** The field's `(buf.validate.field)` rules as proto JSON (only the rules that are set; 64-bit values as strings). */
function rulesOf(field: DescField): RulesJson {
  return toJson(FieldRulesSchema, getOption(field, fieldRulesOption)) as RulesJson;
}

function scalarSchema(scalar: ScalarType, rules: RulesJson): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return stringSchema(rules.string ?? {});
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    default:
      return integerSchema(scalar, Object.values(rules)[0] ?? {});
  }
}

function stringSchema(rules: RulesJson): JsonSchema {
  const schema: JsonSchema = { type: "string" };
  if (rules.len !== undefined) schema.minLength = schema.maxLength = Number(rules.len);
  if (rules.minLen !== undefined) schema.minLength = Number(rules.minLen);
  if (rules.maxLen !== undefined) schema.maxLength = Number(rules.maxLen);
  if (rules.pattern !== undefined) schema.pattern = rules.pattern;
  if (rules.in !== undefined) schema.enum = rules.in;
  if (rules.const !== undefined) schema.const = rules.const;
  return schema;
}

/** Integer bounds: the rule's, else the type's (64-bit values travel as JSON numbers, so within ±2^53). */
function integerSchema(scalar: ScalarType, rules: RulesJson): JsonSchema {
  const [min, max] = INT64.has(scalar) ? [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
    : UINT64.has(scalar) ? [0, Number.MAX_SAFE_INTEGER]
      : UINT32.has(scalar) ? [0, 2 ** 32 - 1] : [-(2 ** 31), 2 ** 31 - 1];
  const schema: JsonSchema = { type: "integer" };
  if (rules.gt !== undefined) schema.exclusiveMinimum = Number(rules.gt);
  else schema.minimum = rules.gte !== undefined ? Number(rules.gte) : min;
  if (rules.lt !== undefined) schema.exclusiveMaximum = Number(rules.lt);
  else schema.maximum = rules.lte !== undefined ? Number(rules.lte) : max;
  if (rules.in !== undefined) schema.enum = (rules.in as unknown[]).map(Number);
  if (rules.const !== undefined) schema.const = Number(rules.const);
  return schema;
}

function itemCounts(rules: RulesJson | undefined): JsonSchema {
  const out: JsonSchema = {};
  if (rules?.minItems !== undefined) out.minItems = Number(rules.minItems);
  if (rules?.maxItems !== undefined) out.maxItems = Number(rules.maxItems);
  if (rules?.unique === true) out.uniqueItems = true;
  return out;
}

/** An absent field reads as its zero value, so a field whose rules refuse that value must be sent. */
function zeroBreaksRules(field: DescField): boolean {
  const rules = rulesOf(field);
  if (rules.required === true) return true;
  if (field.fieldKind === "list") return Number(rules.repeated?.minItems ?? 0) > 0;
  if (field.fieldKind !== "scalar" || field.presence !== Presence.IMPLICIT) return false;
  const schema = scalarSchema(field.scalar, rules);
  if (schema.type === "string") {
    if (((schema.minLength as number | undefined) ?? 0) > 0) return true;
    if (schema.enum && !(schema.enum as string[]).includes("")) return true;
    return typeof schema.pattern === "string" && !new RegExp(schema.pattern).test("");
  }
  if (schema.type === "integer") {
    return (schema.minimum as number) > 0 || (schema.exclusiveMinimum as number) >= 0 || (schema.maximum as number) < 0;
  }
  return false;
}

/** What REST's JSON always contains: implicit-presence scalars and enums, lists and maps (rest-json.ts). */
function alwaysEmitted(field: DescField): boolean {
  if (field.fieldKind === "list" || field.fieldKind === "map") return true;
  return field.fieldKind !== "message" && field.presence === Presence.IMPLICIT;
}

function isUpdateMask(field: DescField): boolean {
  return field.fieldKind === "message" && field.message.typeName === "google.protobuf.FieldMask";
}

function described(schema: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? schema : { description, ...schema };
}

/** The same schema, also accepting null. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type) && schema.type.includes("null")) return schema;
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}
