// The validator half of protoc-gen-keyward-fast: for a message whose (buf.validate) rules are all of a small, plain
// kind (string min/max length, repeated min/max items and string items, integer bounds), a check that answers true
// only where protovalidate would find no violation. False means "ask protovalidate", which then names the violations;
// so the check never has to reproduce a message or a path. A message with any other rule (CEL, required, ignore,
// oneof rules, message rules, anything not listed) gets no check and always goes to protovalidate.
import { getOption, hasOption, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import {
  field as fieldRules, file_buf_validate_validate, message as messageRules, oneof as oneofRules, predefined,
  type FieldRules,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";

/** The body lines of `v_<message>(m): boolean` (`CODEPOINTS(` stands for the runtime's `codepoints(`), or undefined when a rule of the message (or one it reaches) is not plain. */
export function validatorLines(message: DescMessage, id: (m: DescMessage) => string, supported: (m: DescMessage) => boolean): string[] | undefined {
  if (hasOption(message, messageRules) || message.oneofs.some((o) => hasOption(o, oneofRules))) return undefined;
  const lines: string[] = [];
  for (const field of message.fields) {
    if (hasOption(field, predefined)) return undefined;
    const rules = hasOption(field, fieldRules) ? getOption(field, fieldRules) : undefined;
    const nested = field.message;
    if (rules !== undefined && field.oneof) return undefined; // oneof members are ignored when unset: not handled
    const access = `m.${field.localName}`;
    const checks = rules === undefined ? [] : fieldChecks(rules, field);
    if (checks === undefined) return undefined;
    if (field.fieldKind === "message") {
      if (checks.length > 0 || !supported(nested!)) return undefined;
      lines.push(`if (${access} !== undefined && !v_${id(nested!)}(${access})) return false;`);
      continue;
    }
    if (field.fieldKind === "list" && field.listKind === "message") {
      if (!supported(nested!)) return undefined;
      if (checks.length > 0) lines.push(`{ const v = ${access}; if (!(${checks.join(" && ")})) return false; }`);
      lines.push(`for (const item of ${access}) if (!v_${id(nested!)}(item)) return false;`);
      continue;
    }
    if (field.fieldKind === "map") {
      if (rules !== undefined) return undefined;
      if (field.mapKind === "message" && !supported(nested!)) return undefined;
      if (field.mapKind === "message") lines.push(`for (const key of Object.keys(${access})) if (!v_${id(nested!)}(${access}[key])) return false;`);
      continue;
    }
    if (field.oneof) continue; // a scalar in a oneof, without rules
    if (checks.length === 0) continue;
    // Rules of an explicit-presence field apply only when it is set; an implicit one's always (protovalidate's default).
    const passes = `if (!(${checks.join(" && ")})) return false;`;
    const explicit = field.fieldKind !== "list" && field.presence !== 2;
    lines.push(explicit ? `if (${access} !== undefined) { const v = ${access}; ${passes} }` : `{ const v = ${access}; ${passes} }`);
  }
  lines.push("return true;");
  return lines;
}

/** The conditions on `v` that make the field's rules pass; undefined when a rule is not a plain one. */
function fieldChecks(rules: FieldRules, field: DescField): string[] | undefined {
  if (!onlySet(rules, ["type"])) return undefined;
  const type = rules.type;
  if (field.fieldKind === "list") {
    if (type.case !== "repeated") return undefined;
    const repeated = type.value;
    if (!onlySet(repeated, ["minItems", "maxItems", "items"])) return undefined;
    const checks: string[] = [];
    if (has(repeated, "minItems")) checks.push(`v.length >= ${repeated.minItems}`);
    if (has(repeated, "maxItems")) checks.push(`v.length <= ${repeated.maxItems}`);
    if (has(repeated, "items") && repeated.items !== undefined) {
      if (field.listKind !== "scalar") return undefined;
      const item = scalarChecks(repeated.items, field.scalar, "item");
      if (item === undefined) return undefined;
      if (item.length > 0) checks.push(`v.every((item: any) => ${item.join(" && ")})`);
    }
    return checks;
  }
  if (field.fieldKind !== "scalar") return type.case === undefined ? [] : undefined;
  return scalarChecks(rules, field.scalar, "v");
}

function scalarChecks(rules: FieldRules, scalar: ScalarType, v: string): string[] | undefined {
  if (!onlySet(rules, ["type"])) return undefined;
  const type = rules.type;
  switch (type.case) {
    case undefined:
      return [];
    case "string": {
      if (scalar !== ScalarType.STRING || !onlySet(type.value, ["minLen", "maxLen"])) return undefined;
      const checks: string[] = [];
      if (has(type.value, "minLen")) checks.push(`CODEPOINTS(${v}) >= ${type.value.minLen}`);
      if (has(type.value, "maxLen")) checks.push(`CODEPOINTS(${v}) <= ${type.value.maxLen}`);
      return checks;
    }
    case "int64":
    case "uint64":
    case "int32":
    case "uint32": {
      const expected = { int64: ScalarType.INT64, uint64: ScalarType.UINT64, int32: ScalarType.INT32, uint32: ScalarType.UINT32 }[type.case];
      if (scalar !== expected || !onlySet(type.value, ["greaterThan", "lessThan"])) return undefined;
      const big = type.case.endsWith("64") ? "n" : "";
      const checks: string[] = [];
      const { greaterThan, lessThan } = type.value;
      if (greaterThan.case === "gte") checks.push(`${v} >= ${greaterThan.value}${big}`);
      else if (greaterThan.case === "gt") checks.push(`${v} > ${greaterThan.value}${big}`);
      else if (greaterThan.case !== undefined) return undefined;
      if (lessThan.case === "lte") checks.push(`${v} <= ${lessThan.value}${big}`);
      else if (lessThan.case === "lt") checks.push(`${v} < ${lessThan.value}${big}`);
      else if (lessThan.case !== undefined) return undefined;
      // gt above lt is an exclusive range in protovalidate: not handled.
      if (greaterThan.case !== undefined && lessThan.case !== undefined && greaterThan.value > lessThan.value) return undefined;
      return checks;
    }
    default:
      return undefined;
  }
}

/** Whether a rules message has nothing set but the named members (fields or oneofs), unknown fields included. */
function onlySet(rules: { $typeName: string; $unknown?: unknown[] }, allowed: string[]): boolean {
  if (rules.$unknown !== undefined && rules.$unknown.length > 0) return false;
  const r = reflect(descOf(rules), rules as never);
  for (const field of r.fields) {
    if (!r.isSet(field)) continue;
    const name = field.oneof ? field.oneof.localName : field.localName;
    if (!allowed.includes(name)) return false;
  }
  return true;
}

/** Whether a field of a rules message is set (proto2: an unset one still reads as its default). */
function has(rules: { $typeName: string }, localName: string): boolean {
  const r = reflect(descOf(rules), rules as never);
  const field = r.fields.find((f) => f.localName === localName);
  return field !== undefined && r.isSet(field);
}

function descOf(rules: { $typeName: string }): DescMessage {
  const desc = file_buf_validate_validate.messages.find((m) => m.typeName === rules.$typeName);
  if (desc === undefined) throw new Error(`unknown rules message ${rules.$typeName}`);
  return desc;
}
