// The REST JSON decoder the plugin emits per message: from the parsed JSON value to the message, exactly what
// checkJson (REST dialect) followed by protobuf-es fromJson gives, or undefined wherever the input is not plainly
// valid (a null, an unknown key where refused, a field set twice, a type it leaves to the library: bytes, float,
// maps, well-known types). The caller then takes the full path, so refusals and their messages stay the library's.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile } from "@bufbuild/protoplugin";

interface Names {
  id: (message: DescMessage) => string;
  MAX_DEPTH: unknown;
}

const INT32 = [ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32];
const UINT32 = [ScalarType.UINT32, ScalarType.FIXED32];
const INT64 = [ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64];
const UINT64 = [ScalarType.UINT64, ScalarType.FIXED64];

/** The statements turning JSON value `v` into a field value in `out`, or returning undefined. Empty: not supported. */
function readLines(field: DescField, v: string, out: string, n: Names, depth: string): string[] | undefined {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
  if (kind === "message") {
    const target = field.message!;
    if (target.typeName.startsWith("google.protobuf.")) return undefined;
    return [`const ${out} = j_${n.id(target)}(${v}, u, ${depth} + 1);`, `if (${out} === undefined) return undefined;`];
  }
  if (kind === "enum") {
    // An own property only: a name like "toString" must not find Object.prototype's.
    const table = `EN_${field.enum!.typeName.replace(/\./g, "_")}`;
    return [
      `const ${out} = typeof ${v} === "string" && Object.hasOwn(${table}, ${v}) ? ${table}[${v}] : undefined;`,
      `if (${out} === undefined) return undefined;`,
    ];
  }
  if (kind === "map") return undefined;
  const scalar = field.scalar!;
  const check = (test: string, value = v) => [`if (!(${test})) return undefined;`, `const ${out} = ${value};`];
  if (scalar === ScalarType.STRING) return check(`typeof ${v} === "string" && !LONE_SURROGATE.test(${v})`);
  if (scalar === ScalarType.BOOL) return check(`typeof ${v} === "boolean"`);
  if (scalar === ScalarType.DOUBLE) return check(`typeof ${v} === "number" && Number.isFinite(${v})`);
  if (INT32.includes(scalar)) return check(`Number.isInteger(${v}) && ${v} >= -2147483648 && ${v} <= 2147483647`);
  if (UINT32.includes(scalar)) return check(`Number.isInteger(${v}) && ${v} >= 0 && ${v} <= 4294967295`);
  if (INT64.includes(scalar)) return check(`Number.isSafeInteger(${v})`, `BigInt(${v})`);
  if (UINT64.includes(scalar)) return check(`Number.isSafeInteger(${v}) && ${v} >= 0`, `BigInt(${v})`);
  return undefined; // bytes, float
}

/** The enums the decoders of `messages` name, each once. */
export function printJsonEnums(f: GeneratedFile, messages: DescMessage[]): void {
  // REST refuses a string that is not Unicode (json-limits.ts isWellFormed): such input takes the full path.
  f.print("const LONE_SURROGATE = /\\p{Cs}/u;");
  const seen = new Set<string>();
  for (const message of messages) {
    for (const field of message.fields) {
      const e = field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum") ? field.enum : undefined;
      if (!e || seen.has(e.typeName)) continue;
      seen.add(e.typeName);
      const entries = e.values.map((value) => `${JSON.stringify(value.name)}: ${value.number}`).join(", ");
      f.print(`const EN_${e.typeName.replace(/\./g, "_")}: Record<string, number> = { ${entries} };`);
    }
  }
  if (seen.size > 0) f.print();
}

export function printJsonDecoder(f: GeneratedFile, message: DescMessage, shape: unknown, n: Names): void {
  const p = (...parts: unknown[]) => f.print(...(parts as never[]));
  const id = n.id(message);
  p("function j_", id, "(json: any, u: boolean, depth: number): ", shape, " | undefined {");
  if (message.typeName.startsWith("google.protobuf.")) {
    // Well-known types have JSON forms of their own (Struct, Value, Timestamp...): always fromJson's.
    p("  return undefined;");
    p("}");
    p();
    return;
  }
  p("  if (typeof json !== \"object\" || json === null || Array.isArray(json) || depth > ", n.MAX_DEPTH, ") return undefined;");
  p("  const m = z_", id, "() as any;");
  const words = Math.ceil(message.fields.length / 32);
  for (let w = 0; w < words; w++) p(`  let seen${w} = 0;`);
  p("  for (const key of Object.keys(json)) {");
  p("    const v = json[key];");
  p("    if (v === null) return undefined;");
  p("    switch (key) {");
  message.fields.forEach((field, i) => {
    const labels = [...new Set([field.jsonName, field.name])].map((k) => `case ${JSON.stringify(k)}:`).join(" ");
    const word = `seen${i >> 5}`;
    const bit = `${(1 << (i & 31)) | 0}`;
    p(`      ${labels} {`);
    p(`        if ((${word} & ${bit}) !== 0) return undefined;`);
    p(`        ${word} |= ${bit};`);
    const set = (value: string) =>
      field.oneof
        ? [`if (m.${field.oneof.localName}.case !== undefined) return undefined;`, `m.${field.oneof.localName} = { case: "${field.localName}", value: ${value} };`]
        : [`m.${field.localName} = ${value};`];
    let lines: string[] | undefined;
    if (field.fieldKind === "list") {
      const item = readLines(field, "item", "x", n, "depth");
      lines = item && [
        "if (!Array.isArray(v)) return undefined;",
        "const list = m." + field.localName + ";",
        "for (const item of v) {",
        ...item.map((l) => "  " + l),
        "  list.push(x);",
        "}",
      ];
    } else {
      const value = readLines(field, "v", "x", n, "depth");
      lines = value && [...value, ...set("x")];
    }
    for (const line of lines ?? ["return undefined; // left to fromJson"]) p("        ", line);
    p("        break;");
    p("      }");
  });
  p("      default:");
  p("        if (!u) return undefined;");
  p("    }");
  p("  }");
  p("  return m;");
  p("}");
  p();
}
