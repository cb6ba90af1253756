// protoc-gen-keyward-fast: emits specialised binary codecs for the messages named in buf.gen.yaml (`message=<type>`,
// repeatable) and every message they reach, as `<file>_fast.ts` beside protoc-gen-es's `<file>_pb.ts`. An encoder
// writes exactly what toBinary writes; a decoder builds exactly what fromBinary builds, or answers undefined where it
// would have to guess (the caller then uses fromBinary). test/codec/fast-codec.property.test.ts holds them to that.
// Beside them, REST JSON codecs (json-decoder.ts, rest-json-encoder.ts), held by test/codec/fast-json.property.test.ts
// to the REST path they shortcut (checkJson + fromJson in, rest-json.ts's walk out).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScalarType, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { printJsonDecoder, printJsonEnums } from "./json-decoder.js";
import { printRestJsonEncoder, printRestJsonEnums, printRestJsonTextEncoder } from "./rest-json-encoder.js";
import { validatorLines } from "./validators.js";
import { createEcmaScriptPlugin, runNodeJs, type GeneratedFile, type Schema } from "@bufbuild/protoplugin";

interface Options {
  messages: string[];
}

const RUNTIME = "keyward_fast/wire.ts";
const STRUCT = "google.protobuf.Struct";
const VALUE = "google.protobuf.Value";

const plugin = createEcmaScriptPlugin<Options>({
  name: "protoc-gen-keyward-fast",
  version: "v1",
  parseOptions(raw) {
    const messages: string[] = [];
    for (const { key, value } of raw) {
      if (key !== "message") throw new Error(`unknown option ${key}`);
      messages.push(value);
    }
    return { messages };
  },
  generateTs,
});

function generateTs(schema: Schema<Options>): void {
  const byName = new Map<string, DescMessage>();
  for (const file of schema.allFiles) for (const message of messagesOf(file)) byName.set(message.typeName, message);
  let any = false;
  for (const file of schema.files) {
    const roots = schema.options.messages.map((name) => byName.get(name)).filter((m): m is DescMessage => m?.file === file);
    if (roots.length === 0) continue;
    any = true;
    generateFile(schema.generateFile(`${file.name}_fast.ts`), file, closureOf(roots));
  }
  const missing = schema.options.messages.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`protoc-gen-keyward-fast: unknown message ${missing.join(", ")}`);
  if (any) schema.generateFile(RUNTIME).print(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "runtime.ts"), "utf8").trimEnd());
}

function messagesOf(file: DescFile): DescMessage[] {
  const out: DescMessage[] = [];
  const visit = (message: DescMessage) => {
    out.push(message);
    message.nestedMessages.forEach(visit);
  };
  file.messages.forEach(visit);
  return out;
}

/** The roots and every message their fields reach, roots first. */
function closureOf(roots: DescMessage[]): DescMessage[] {
  const seen = new Set<DescMessage>();
  const visit = (message: DescMessage) => {
    if (seen.has(message)) return;
    seen.add(message);
    checkSupported(message);
    for (const field of message.fields) {
      const target = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") || (field.fieldKind === "map" && field.mapKind === "message") ? field.message : undefined;
      if (target) visit(target);
    }
  };
  roots.forEach(visit);
  return [...seen];
}

/** What this generator does not write yet fails generation, never the runtime. */
function checkSupported(message: DescMessage): void {
  if (message.file.edition !== 999) throw new Error(`${message.typeName}: only proto3 files are supported`);
  for (const field of message.fields) {
    const where = `${message.typeName}.${field.name}`;
    if ("delimitedEncoding" in field && field.delimitedEncoding) throw new Error(`${where}: group encoding is not supported`);
    if (field.fieldKind === "map" && field.mapKey !== ScalarType.STRING) throw new Error(`${where}: only string map keys are supported`);
    if (field.fieldKind === "message" && !field.oneof && isWrapperDesc(field.message)) throw new Error(`${where}: wrapper types are not supported`);
    if ((field.fieldKind === "scalar" || field.fieldKind === "list" || field.fieldKind === "map") && "longAsString" in field && field.longAsString) {
      throw new Error(`${where}: jstype JS_STRING is not supported`);
    }
  }
}

const id = (message: DescMessage) => message.typeName.replace(/\./g, "_");

/** A field of type Struct that protobuf-es holds as a JsonObject (anywhere but inside google.protobuf.Value). */
const isJsonStruct = (field: DescField) => field.message?.typeName === STRUCT && field.parent.typeName !== VALUE;

function generateFile(f: GeneratedFile, file: DescFile, messages: DescMessage[]): void {
  f.preamble(file);
  const runtime = (name: string) => f.import(name, `./${RUNTIME.replace(/\.ts$/, ".js")}`);
  const [FastReader, FastWriter, MAX_DEPTH, BAIL, runDecode, runEncode, structToJson] =
    ["FastReader", "FastWriter", "MAX_DEPTH", "BAIL", "runDecode", "runEncode", "structToJson"].map((n) => runtime(n));
  const Allocate = f.import("Allocate", `./${RUNTIME.replace(/\.ts$/, ".js")}`, true);
  const messageInit = f.import("MessageInitShape", "@bufbuild/protobuf", true);

  f.print("// Specialised codecs (protoc-gen-keyward-fast): same bytes as toBinary, same messages as fromBinary; REST JSON as the REST path reads and writes it.");
  f.print();
  printJsonEnums(f, messages);
  printRestJsonEnums(f, messages);
  for (const message of messages) {
    const shape = f.importShape(message);
    const desc = f.importSchema(message);
    const name = message.name;
    f.print(f.jsDoc(`\`${message.typeName}\` in the binary format, byte for byte as toBinary, in \`alloc(size)\`; \`reserve\` bytes are left free in front.`));
    f.print(f.export("function", `encode${uniqueName(message, messages)}`), "(message: ", messageInit, "<typeof ", desc, ">, reserve = 0, alloc?: ", Allocate, "): Uint8Array {");
    f.print("  return ", runEncode, "(message, reserve, alloc, e_", id(message), ");");
    f.print("}");
    f.print();
    f.print(f.jsDoc(`\`${message.typeName}\` as fromBinary reads it, or undefined where the fast path stops (then call fromBinary).`));
    f.print(f.export("function", `decode${uniqueName(message, messages)}`), "(bytes: Uint8Array): ", shape, " | undefined {");
    f.print("  return ", runDecode, "(bytes, d_", id(message), ");");
    f.print("}");
    f.print();
    f.print(f.jsDoc(`\`${message.typeName}\` from parsed REST JSON as checkJson (REST dialect) and fromJson take it, or undefined (then take that path); \`allowUnknown\` as v1 REST.`));
    f.print(f.export("function", `decodeJson${uniqueName(message, messages)}`), "(json: unknown, allowUnknown: boolean): ", shape, " | undefined {");
    f.print("  return j_", id(message), "(json, allowUnknown, 0);");
    f.print("}");
    f.print();
    f.print(f.jsDoc(`\`${message.typeName}\` (a message or an init object) as REST JSON, the object rest-json.ts builds, or undefined (then build it there).`));
    f.print(f.export("function", `restJson${uniqueName(message, messages)}`), "(message: object): Record<string, unknown> | undefined {");
    f.print("  return r_", id(message), "(message);");
    f.print("}");
    f.print();
    f.print(f.jsDoc(`\`${message.typeName}\` as the JSON text of its REST JSON (\`JSON.stringify\` of \`restJson\`'s object), or undefined where that is.`));
    f.print(f.export("function", `restJsonText${uniqueName(message, messages)}`), "(message: object): string | undefined {");
    f.print("  return t_", id(message), "(message);");
    f.print("}");
    f.print();
    printRestJsonEncoder(f, message, id);
    printRestJsonTextEncoder(f, message, id, runtime("numberText"));
    printZero(f, message, shape);
    printJsonDecoder(f, message, shape, { id, MAX_DEPTH });
    printDecoder(f, message, shape, { FastReader, MAX_DEPTH, BAIL, structToJson });
    printEncoder(f, message, FastWriter);
    void name;
  }
  const FastCodec = f.import("FastCodec", `./${RUNTIME.replace(/\.ts$/, ".js")}`, true);
  const validators = validatorsOf(messages);
  for (const [message, lines] of validators) {
    f.print("/** `", message.typeName, "` passes protovalidate: checked here only where that is certain, else false. */");
    f.print("function v_", id(message), "(m: any): boolean {");
    for (const line of lines) {
      const parts: unknown[] = [];
      line.split("CODEPOINTS(").forEach((part, i) => (i === 0 ? parts.push(part) : parts.push(runtime("codepoints"), "(", part)));
      f.print("  ", ...(parts as never[]));
    }
    f.print("}");
    f.print();
  }
  f.print(f.jsDoc("Every codec of this file by its schema, for a transport that looks codecs up by message type."));
  f.print(f.export("const", "fastCodecs"), ": ", FastCodec, "[] = [");
  for (const message of messages) {
    const n = uniqueName(message, messages);
    f.print("  { schema: ", f.importSchema(message), ", encode: encode", n, " as ", FastCodec, "[\"encode\"], decode: decode", n, ", json: decodeJson", n, ", restJson: restJson", n, ", restJsonText: restJsonText", n, validators.has(message) ? `, valid: v_${id(message)}` : "", " },");
  }
  f.print("];");
}

/** The messages whose rules get a generated check, with its lines; a message reaching an unchecked one gets none. */
function validatorsOf(messages: DescMessage[]): Map<DescMessage, string[]> {
  const done = new Map<DescMessage, string[] | undefined>();
  const inProgress = new Set<DescMessage>();
  const supported = (message: DescMessage): boolean => {
    if (done.has(message)) return done.get(message) !== undefined;
    if (inProgress.has(message)) return false; // a cycle: left to protovalidate, to stay on the safe side
    inProgress.add(message);
    const lines = validatorLines(message, id, supported);
    inProgress.delete(message);
    done.set(message, lines);
    return lines !== undefined;
  };
  messages.forEach(supported);
  const out = new Map<DescMessage, string[]>();
  for (const message of messages) {
    const lines = done.get(message);
    if (lines !== undefined) out.set(message, lines);
  }
  return out;
}

/** The exported name part: the message's name, or its full name where two share a name. */
function uniqueName(message: DescMessage, all: DescMessage[]): string {
  const clash = all.some((other) => other !== message && other.name === message.name);
  return clash ? id(message) : message.name;
}

function zeroOf(field: DescField): string {
  switch (field.fieldKind) {
    case "list":
      return "[]";
    case "map":
      return "{}";
    case "enum":
      return String(field.enum.values[0].number);
    case "scalar":
      return scalarZero(field.scalar);
    default:
      throw new Error(`${field.parent.typeName}.${field.name}: no zero value`);
  }
}

function scalarZero(scalar: ScalarType): string {
  switch (scalar) {
    case ScalarType.STRING:
      return '""';
    case ScalarType.BOOL:
      return "false";
    case ScalarType.BYTES:
      return "new Uint8Array(0)";
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return "0n";
    default:
      return "0";
  }
}

/** The zero message, with its properties in create()'s order: oneofs and implicit-presence fields only. */
function printZero(f: GeneratedFile, message: DescMessage, shape: unknown): void {
  f.print("function z_", id(message), "(): ", shape as never, " {");
  const parts = [`$typeName: ${JSON.stringify(message.typeName)}`];
  for (const member of message.members) {
    if (member.kind === "oneof") parts.push(`${member.localName}: { case: undefined }`);
    else if (member.presence === 2) parts.push(`${member.localName}: ${zeroOf(member)}`);
  }
  f.print("  return { ", parts.join(", "), " } as ", shape as never, ";");
  f.print("}");
  f.print();
}

const READ: Record<ScalarType, string> = {
  [ScalarType.DOUBLE]: "double", [ScalarType.FLOAT]: "float", [ScalarType.INT64]: "int64", [ScalarType.UINT64]: "uint64",
  [ScalarType.INT32]: "int32", [ScalarType.FIXED64]: "fixed64", [ScalarType.FIXED32]: "fixed32", [ScalarType.BOOL]: "bool",
  [ScalarType.STRING]: "string", [ScalarType.BYTES]: "bytes", [ScalarType.UINT32]: "uint32", [ScalarType.SFIXED32]: "sfixed32",
  [ScalarType.SFIXED64]: "sfixed64", [ScalarType.SINT32]: "sint32", [ScalarType.SINT64]: "sint64",
};

function wireTypeOf(scalar: ScalarType): number {
  switch (scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return 2;
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 1;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return 5;
    default:
      return 0;
  }
}

const tagOf = (number: number, wireType: number) => ((number << 3) | wireType) >>> 0;

interface Runtime {
  FastReader: unknown;
  MAX_DEPTH: unknown;
  BAIL: unknown;
  structToJson: unknown;
}

function printDecoder(f: GeneratedFile, message: DescMessage, shape: unknown, rt: Runtime): void {
  const p = (...parts: unknown[]) => f.print(...(parts as never[]));
  p("function d_", id(message), "(r: ", rt.FastReader, ", end: number, depth: number): ", shape, " {");
  p("  if (depth > ", rt.MAX_DEPTH, ") throw ", rt.BAIL, ";");
  p("  const m = z_", id(message), "() as any;");
  p("  while (r.pos < end) {");
  p("    switch (r.tag()) {");
  for (const field of message.fields) {
    const name = field.localName;
    // A nested message's bytes, read by its decoder (and made a JsonObject where protobuf-es holds one).
    const nested = (target: DescMessage, json: boolean) => {
      const call = `d_${id(target)}(r, r.end(), depth + 1)`;
      return json ? [rt.structToJson, `(${call})`] : [call];
    };
    const set = (value: unknown[]) =>
      field.oneof ? [`m.${field.oneof.localName} = { case: "${name}", value: `, ...value, " };"] : [`m.${name} = `, ...value, ";"];
    switch (field.fieldKind) {
      case "scalar":
        p(`      case ${tagOf(field.number, wireTypeOf(field.scalar))}:`);
        p("        ", ...set([`r.${READ[field.scalar]}()`]));
        p("        break;");
        break;
      case "enum":
        p(`      case ${tagOf(field.number, 0)}:`);
        p("        ", ...set(["r.int32()"]));
        p("        break;");
        break;
      case "message": {
        // A second occurrence would be merged into the first by fromBinary: left to it.
        const taken = field.oneof ? `m.${field.oneof.localName}.case === "${name}"` : `m.${name} !== undefined`;
        p(`      case ${tagOf(field.number, 2)}:`);
        p(`        if (${taken}) throw `, rt.BAIL, ";");
        p("        ", ...set(nested(field.message, isJsonStruct(field))));
        p("        break;");
        break;
      }
      case "list":
        if (field.listKind === "message") {
          p(`      case ${tagOf(field.number, 2)}:`);
          p(`        m.${name}.push(`, ...nested(field.message, isJsonStruct(field)), ");");
          p("        break;");
        } else {
          const scalar = field.listKind === "enum" ? ScalarType.INT32 : field.scalar;
          const read = `r.${READ[scalar]}()`;
          const wireType = wireTypeOf(scalar);
          p(`      case ${tagOf(field.number, wireType)}:`);
          p(`        m.${name}.push(${read});`);
          p("        break;");
          if (wireType !== 2) {
            // Packed: one run of values (accepted whether or not the field is declared packed, as protobuf-es does).
            p(`      case ${tagOf(field.number, 2)}: {`);
            p("        const stop = r.end();");
            p(`        while (r.pos < stop) m.${name}.push(${read});`);
            p("        if (r.pos !== stop) throw ", rt.BAIL, ";");
            p("        break;");
            p("      }");
          }
        }
        break;
      case "map": {
        const valueScalar = field.mapKind === "enum" ? ScalarType.INT32 : field.mapKind === "scalar" ? field.scalar : undefined;
        const valueTag = tagOf(2, valueScalar === undefined ? 2 : wireTypeOf(valueScalar));
        const readValue = valueScalar === undefined ? nested(field.message!, isJsonStruct(field)) : [`r.${READ[valueScalar]}()`];
        const zero = valueScalar === undefined
          ? isJsonStruct(field) ? ["{}"] : [`z_${id(field.message!)}()`]
          : [field.mapKind === "enum" ? String(field.enum!.values[0].number) : scalarZero(valueScalar)];
        p(`      case ${tagOf(field.number, 2)}: {`);
        p("        const stop = r.end();");
        p("        let key = \"\";");
        p("        let value: any = undefined;");
        p("        while (r.pos < stop) {");
        p("          const tag = r.tag();");
        p("          if (tag === 10) key = r.string();");
        p(`          else if (tag === ${valueTag}) value = `, ...readValue, ";");
        p("          else throw ", rt.BAIL, ";");
        p("        }");
        p("        if (r.pos !== stop) throw ", rt.BAIL, ";");
        p(`        m.${name}[key] = value === undefined ? `, ...zero, " : value;");
        p("        break;");
        p("      }");
        break;
      }
    }
  }
  p("      default:");
  p("        throw ", rt.BAIL, ";");
  p("    }");
  p("  }");
  p("  if (r.pos !== end) throw ", rt.BAIL, ";");
  p("  return m;");
  p("}");
  p();
}

function printEncoder(f: GeneratedFile, message: DescMessage, FastWriter: unknown): void {
  const p = (...parts: unknown[]) => f.print(...(parts as never[]));
  p("function e_", id(message), "(w: ", FastWriter, ", m: any): void {");
  for (const field of [...message.fields].sort((a, b) => a.number - b.number)) {
    const name = field.localName;
    const value = field.oneof ? `m.${field.oneof.localName}?.value` : `m.${name}`;
    const present = field.oneof
      ? `m.${field.oneof.localName}?.case === "${name}"`
      : field.fieldKind === "list" ? `v != null && v.length > 0`
      : field.fieldKind === "map" || field.fieldKind === "message" || field.presence !== 2 ? "v != null"
      : `v != null && ${nonZero(field)}`;
    p("  {");
    p(`    const v = ${value};`);
    p(`    if (${present}) {`);
    switch (field.fieldKind) {
      case "scalar":
        p(`      w.varint(${tagOf(field.number, wireTypeOf(field.scalar))});`);
        p(`      w.${READ[field.scalar]}(v);`);
        break;
      case "enum":
        p(`      w.varint(${tagOf(field.number, 0)});`);
        p("      w.int32(v);");
        break;
      case "message":
        p(`      w.varint(${tagOf(field.number, 2)});`);
        p("      const at = w.fork();");
        p(isJsonStruct(field) ? "      w.jsonStruct(v);" : `      e_${id(field.message)}(w, v);`);
        p("      w.join(at);");
        break;
      case "list":
        if (field.listKind === "message") {
          p("      for (const item of v) {");
          p(`        w.varint(${tagOf(field.number, 2)});`);
          p("        const at = w.fork();");
          p(isJsonStruct(field) ? "        w.jsonStruct(item);" : `        e_${id(field.message)}(w, item);`);
          p("        w.join(at);");
          p("      }");
        } else {
          const scalar = field.listKind === "enum" ? ScalarType.INT32 : field.scalar;
          if (field.packed) {
            p(`      w.varint(${tagOf(field.number, 2)});`);
            p("      const at = w.fork();");
            p(`      for (const item of v) w.${READ[scalar]}(item);`);
            p("      w.join(at);");
          } else {
            p("      for (const item of v) {");
            p(`        w.varint(${tagOf(field.number, wireTypeOf(scalar))});`);
            p(`        w.${READ[scalar]}(item);`);
            p("      }");
          }
        }
        break;
      case "map": {
        const valueScalar = field.mapKind === "enum" ? ScalarType.INT32 : field.mapKind === "scalar" ? field.scalar : undefined;
        p("      for (const key of Object.keys(v)) {");
        // An own `__proto__` key (JSON.parse makes one, e.g. in stored metadata) is lost by protobuf-es's create and
        // fromBinary, which assign map entries; toBinary never writes it, so neither do we.
        p('        if (key === "__proto__") continue;');
        p(`        w.varint(${tagOf(field.number, 2)});`);
        p("        const at = w.fork();");
        p("        w.varint(10);");
        p("        w.string(key);");
        if (valueScalar === undefined) {
          p("        w.varint(18);");
          p("        const inner = w.fork();");
          p(isJsonStruct(field) ? "        w.jsonStruct(v[key]);" : `        e_${id(field.message!)}(w, v[key]);`);
          p("        w.join(inner);");
        } else {
          p(`        w.varint(${tagOf(2, wireTypeOf(valueScalar))});`);
          p(`        w.${READ[valueScalar]}(v[key]);`);
        }
        p("        w.join(at);");
        p("      }");
        break;
      }
    }
    p("    }");
    p("  }");
  }
  p("  w.unknown(m.$unknown);");
  p("}");
  p();
}

/** toBinary's test for an implicit-presence scalar worth writing (isScalarZeroValue, negated). */
function nonZero(field: DescField): string {
  if (field.fieldKind === "enum") return `v !== ${field.enum.values[0].number}`;
  if (field.fieldKind !== "scalar") throw new Error("scalar expected");
  switch (field.scalar) {
    case ScalarType.BOOL:
      return "v !== false";
    case ScalarType.STRING:
      return 'v !== ""';
    case ScalarType.BYTES:
      return "!(v instanceof Uint8Array && v.byteLength === 0)";
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return "!Object.is(v, 0)";
    default:
      return "v != 0";
  }
}

runNodeJs(plugin);
