// The REST JSON encoder the plugin emits per message: the JSON object src/transport/rest/rest-json.ts builds by
// walking the descriptor (implicit fields always present, 64-bit integers as JSON numbers), from a message or an
// init object, without the walk. Undefined wherever that path would do more than copy values: a oneof, a well-known
// type other than Struct, bytes, a null, a 64-bit value beyond 2^53 (rest-json.ts then answers, or throws, as today).
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile } from "@bufbuild/protoplugin";

const INT64 = [ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64, ScalarType.UINT64, ScalarType.FIXED64];
const IMPLICIT = 2;

const enumTable = (typeName: string) => `EJ_${typeName.replace(/\./g, "_")}`;

/** The enums' number-to-name tables the encoders of `messages` use, each once. */
export function printRestJsonEnums(f: GeneratedFile, messages: DescMessage[]): void {
  const seen = new Set<string>();
  for (const message of messages) {
    for (const field of message.fields) {
      const e = field.enum;
      if (!e || seen.has(e.typeName) || e.typeName === "google.protobuf.NullValue") continue;
      seen.add(e.typeName);
      // The first name of a number, as protobuf-es' DescEnum.value keeps it.
      const byNumber = new Map<number, string>();
      for (const value of e.values) if (!byNumber.has(value.number)) byNumber.set(value.number, value.name);
      const entries = [...byNumber].map(([number, name]) => `${JSON.stringify(String(number))}: ${JSON.stringify(name)}`).join(", ");
      f.print(`const ${enumTable(e.typeName)}: Record<string, string> = { ${entries} };`);
    }
  }
  if (seen.size > 0) f.print();
}

/** Statements turning field value `v` (not undefined) into JSON `out`, returning undefined where unsupported. */
function valueLines(field: DescField, v: string, out: string, id: (m: DescMessage) => string): string[] | undefined {
  const kind = field.fieldKind === "list" || field.fieldKind === "map" ? (field.fieldKind === "list" ? field.listKind : field.mapKind) : field.fieldKind;
  const bail = `if (${v} === null) return undefined;`;
  if (kind === "message") {
    const target = field.message!;
    if (target.typeName === "google.protobuf.Struct") return [bail, `const ${out} = ${v};`]; // held as its JSON already
    if (target.typeName.startsWith("google.protobuf.")) return undefined;
    return [bail, `const ${out} = r_${id(target)}(${v});`, `if (${out} === undefined) return undefined;`];
  }
  if (kind === "enum") {
    if (field.enum!.typeName === "google.protobuf.NullValue") return [bail, `const ${out} = null;`];
    const table = enumTable(field.enum!.typeName);
    return [bail, `const ${out} = typeof ${v} === "number" && Object.hasOwn(${table}, ${v}) ? ${table}[${v}] : ${v};`];
  }
  const scalar = field.scalar!;
  if (INT64.includes(scalar)) return [bail, `const ${out} = Number(${v});`, `if (!Number.isSafeInteger(${out})) return undefined;`];
  if (scalar === ScalarType.BYTES) return undefined;
  if (scalar === ScalarType.DOUBLE || scalar === ScalarType.FLOAT) return [bail, `const ${out} = Number.isFinite(${v}) ? ${v} : String(${v});`];
  return [bail, `const ${out} = ${v};`];
}

/** The JSON rest-json.ts writes for an absent implicit-presence field: its zero. */
function zeroJson(field: DescField): string {
  if (field.fieldKind === "enum") {
    const e = field.enum;
    if (e.typeName === "google.protobuf.NullValue") return "null";
    const zero = e.values.find((value) => value.number === 0);
    return zero ? JSON.stringify(zero.name) : "0";
  }
  if (field.fieldKind !== "scalar") throw new Error("scalar expected");
  if (field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES) return '""';
  return field.scalar === ScalarType.BOOL ? "false" : "0";
}

export function printRestJsonEncoder(f: GeneratedFile, message: DescMessage, id: (m: DescMessage) => string): void {
  const p = (...parts: unknown[]) => f.print(...(parts as never[]));
  p("function r_", id(message), "(m: any): Record<string, unknown> | undefined {");
  if (leftToRestJson(message)) {
    p("  return undefined; // protobuf-es' toJson writes it (rest-json.ts libraryJson)");
    p("}");
    p();
    return;
  }
  p("  const json: Record<string, unknown> = {};");
  for (const field of message.fields) {
    const key = JSON.stringify(field.jsonName);
    p("  {");
    p(`    const v = m.${field.localName};`);
    p("    if (v !== undefined) {");
    let lines: string[] | undefined;
    if (field.fieldKind === "list") {
      const item = valueLines(field, "item", "x", id);
      lines = item && ["if (v === null) return undefined;", "const list: unknown[] = [];", "for (const item of v) {", ...item.map((l) => "  " + l), "  list.push(x);", "}", `json[${key}] = list;`];
    } else if (field.fieldKind === "map") {
      const item = valueLines(field, "item", "x", id);
      lines = item && ["if (v === null) return undefined;", "const map: Record<string, unknown> = {};", "for (const [k, item] of Object.entries(v)) {", ...item.map((l) => "  " + l), "  map[k] = x;", "}", `json[${key}] = map;`];
    } else {
      const value = valueLines(field, "v", "x", id);
      lines = value && [...value, `json[${key}] = x;`];
    }
    for (const line of lines ?? ["return undefined; // left to rest-json.ts"]) p("      ", line);
    p("    }");
    if (field.fieldKind === "list") p(`    else json[${key}] = [];`);
    else if (field.fieldKind === "map") p(`    else json[${key}] = {};`);
    else if (field.fieldKind !== "message" && field.presence === IMPLICIT) p(`    else json[${key}] = ${zeroJson(field)};`);
    p("  }");
  }
  p("  return json;");
  p("}");
  p();
}

/**
 * Statements turning field value `v` (not undefined) into its JSON text `out`: the text JSON.stringify writes for
 * what `valueLines` makes of `v`, bailing (undefined) exactly where it does.
 */
function textLines(field: DescField, v: string, out: string, id: (m: DescMessage) => string): string[] | undefined {
  const kind = field.fieldKind === "list" || field.fieldKind === "map" ? (field.fieldKind === "list" ? field.listKind : field.mapKind) : field.fieldKind;
  const bail = `if (${v} === null) return undefined;`;
  if (kind === "message") {
    const target = field.message!;
    // A Struct is held as its JSON already; a value JSON.stringify leaves out is left to the object path.
    if (target.typeName === "google.protobuf.Struct") return [bail, `const ${out} = JSON.stringify(${v});`, `if (${out} === undefined) return undefined;`];
    if (target.typeName.startsWith("google.protobuf.")) return undefined;
    return [bail, `const ${out} = t_${id(target)}(${v});`, `if (${out} === undefined) return undefined;`];
  }
  if (kind === "enum") {
    if (field.enum!.typeName === "google.protobuf.NullValue") return [bail, `const ${out} = "null";`];
    const table = enumTable(field.enum!.typeName);
    return [bail, `const ${out} = JSON.stringify(typeof ${v} === "number" && Object.hasOwn(${table}, ${v}) ? ${table}[${v}] : ${v});`];
  }
  const scalar = field.scalar!;
  // A safe integer's text is String's; JSON.stringify agrees (-0 included). NUMBER_TEXT: the runtime's numberText.
  if (INT64.includes(scalar)) return [bail, `const n = Number(${v});`, `if (!Number.isSafeInteger(n)) return undefined;`, `const ${out} = NUMBER_TEXT(n);`];
  if (scalar === ScalarType.BYTES) return undefined;
  if (scalar === ScalarType.DOUBLE || scalar === ScalarType.FLOAT) return [bail, `const ${out} = JSON.stringify(Number.isFinite(${v}) ? ${v} : String(${v}));`];
  if (scalar === ScalarType.STRING) return [bail, `const ${out} = JSON.stringify(${v});`];
  // Booleans and numbers read as String writes them (non-finite ones: "null"); anything else as JSON.stringify does.
  return [bail, `const ${out} = typeof ${v} === "boolean" ? "" + ${v} : typeof ${v} === "number" ? NUMBER_TEXT(${v}) : JSON.stringify(${v});`];
}

/** Whether a field is in every REST JSON object of its message: lists, maps and implicit-presence scalars and enums. */
function alwaysWritten(field: DescField): boolean {
  return field.fieldKind === "list" || field.fieldKind === "map" || (field.fieldKind !== "message" && field.presence === IMPLICIT);
}

/** Messages no generated REST JSON encoder writes (oneofs, well-known types): rest-json.ts does. */
function leftToRestJson(message: DescMessage): boolean {
  return message.oneofs.length > 0 || message.typeName.startsWith("google.protobuf.");
}

/**
 * The REST JSON encoder's text form: `JSON.stringify(r_<message>(m))` written directly, without the object, or
 * undefined exactly where `r_` is undefined. REST writes its answer from it. `numberText`: the runtime's, imported.
 */
export function printRestJsonTextEncoder(f: GeneratedFile, message: DescMessage, id: (m: DescMessage) => string, numberText: unknown): void {
  const p = (...parts: unknown[]) => f.print(...(parts as never[]));
  p("function t_", id(message), "(m: any): string | undefined {");
  if (leftToRestJson(message)) {
    p("  return undefined; // as r_: left to rest-json.ts");
    p("}");
    p();
    return;
  }
  p('  let out = "{";');
  // A key's comma is known when the generator writes it: none before the first field, a constant one once a field
  // that is always written came before. Only in between (optional fields first) does `sep` say at run time.
  const fields = message.fields;
  const alwaysBefore = (i: number) => fields.slice(0, i).some(alwaysWritten);
  if (fields.length > 1 && !alwaysWritten(fields[0])) p('  let sep = "";');
  fields.forEach((field, i) => {
    const comma = i === 0 ? "" : alwaysBefore(i) ? "," : undefined; // undefined: `sep`
    const key = (text: string) => (comma === undefined ? `sep + ${JSON.stringify(text)}` : JSON.stringify(comma + text));
    const put = (text: string) => `out += ${key(`"${field.jsonName}":`)} + ${text};`;
    const setSep = i + 1 < fields.length && !alwaysBefore(i + 1) ? ' sep = ",";' : "";
    p("  {");
    p(`    const v = m.${field.localName};`);
    p("    if (v !== undefined) {");
    let lines: string[] | undefined;
    if (field.fieldKind === "list") {
      const item = textLines(field, "item", "x", id);
      lines = item && [
        "if (v === null) return undefined;", 'let list = "[";', "for (const item of v) {", ...item.map((l) => "  " + l),
        '  list += list.length === 1 ? x : "," + x;', "}", put('list + "]"'),
      ];
    } else if (field.fieldKind === "map") {
      const item = textLines(field, "item", "x", id);
      // An own "__proto__" key is left out, as r_'s assignment leaves it out of its object.
      lines = item && [
        "if (v === null) return undefined;", 'let map = "{";', "for (const [k, item] of Object.entries(v)) {", ...item.map((l) => "  " + l),
        '  if (k === "__proto__") continue;', '  map += (map.length === 1 ? "" : ",") + JSON.stringify(k) + ":" + x;', "}", put('map + "}"'),
      ];
    } else {
      const value = textLines(field, "v", "x", id);
      lines = value && [...value, put("x")];
    }
    for (const line of lines ?? ["return undefined; // left to rest-json.ts"]) {
      p("      ", ...line.split("NUMBER_TEXT").flatMap((part, k) => (k === 0 ? [part] : [numberText, part])));
    }
    if (lines && setSep) p("     ", setSep);
    p("    }");
    const absent = field.fieldKind === "list" ? "[]" : field.fieldKind === "map" ? "{}"
      : field.fieldKind !== "message" && field.presence === IMPLICIT ? zeroJson(field) : undefined;
    // zeroJson's literals are JSON text as they stand.
    if (absent !== undefined) p(`    else { out += ${key(`"${field.jsonName}":${absent}`)};${setSep} }`);
    p("  }");
  });
  p('  return out + "}";');
  p("}");
  p();
}
