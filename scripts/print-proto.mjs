import { isFieldSet } from "@bufbuild/protobuf";
import { FieldDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

// Prints a FileDescriptorProto back as .proto source: messages, enums, oneofs, extension ranges and extend
// blocks, without options. Enough for buf to compile files that use the schema's extensions.
const scalarNames = {
  1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32", 8: "bool",
  9: "string", 12: "bytes", 13: "uint32", 15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64",
};
const labelNames = { 1: "optional", 2: "required", 3: "repeated" };
const maxFieldNumber = 536870911;

function typeOf(field) {
  return scalarNames[field.type] ?? field.typeName;
}

function printField(field, indent, { inOneof, mapEntries }) {
  const entry = mapEntries.get(field.typeName);
  if (entry) {
    const [key, value] = entry.field;
    return `${indent}map<${typeOf(key)}, ${typeOf(value)}> ${field.name} = ${field.number};`;
  }
  const label = inOneof ? "" : `${labelNames[field.label]} `;
  return `${indent}${label}${typeOf(field)} ${field.name} = ${field.number};`;
}

function printEnum(en, indent) {
  const values = en.value.map((v) => `${indent}  ${v.name} = ${v.number};`);
  return [`${indent}enum ${en.name} {`, ...values, `${indent}}`].join("\n");
}

function printMessage(message, indent, scope) {
  const fullName = `${scope}.${message.name}`;
  const mapEntries = new Map(
    message.nestedType.filter((n) => n.options?.mapEntry).map((n) => [`${fullName}.${n.name}`, n]),
  );
  const inner = `${indent}  `;
  const lines = [`${indent}message ${message.name} {`];
  for (const en of message.enumType) lines.push(printEnum(en, inner));
  for (const nested of message.nestedType) {
    if (!nested.options?.mapEntry) lines.push(printMessage(nested, inner, fullName));
  }
  const oneofFields = message.oneofDecl.map(() => []);
  for (const field of message.field) {
    if (isFieldSet(field, FieldDescriptorProtoSchema.field.oneofIndex) && !field.proto3Optional) oneofFields[field.oneofIndex].push(field);
    else lines.push(printField(field, inner, { inOneof: false, mapEntries }));
  }
  message.oneofDecl.forEach((oneof, i) => {
    lines.push(`${inner}oneof ${oneof.name} {`);
    for (const field of oneofFields[i]) lines.push(printField(field, `${inner}  `, { inOneof: true, mapEntries }));
    lines.push(`${inner}}`);
  });
  for (const range of message.extensionRange) {
    const end = range.end - 1 >= maxFieldNumber ? "max" : String(range.end - 1);
    lines.push(`${inner}extensions ${range.start} to ${end};`);
  }
  lines.push(printExtends(message.extension, inner));
  lines.push(`${indent}}`);
  return lines.filter(Boolean).join("\n");
}

function printExtends(extensions, indent) {
  const byExtendee = new Map();
  for (const e of extensions) byExtendee.set(e.extendee, [...(byExtendee.get(e.extendee) ?? []), e]);
  const blocks = [];
  for (const [extendee, fields] of byExtendee) {
    const body = fields.map((f) => printField(f, `${indent}  `, { inOneof: false, mapEntries: new Map() }));
    blocks.push([`${indent}extend ${extendee} {`, ...body, `${indent}}`].join("\n"));
  }
  return blocks.join("\n");
}

/** Returns .proto source for `file` (a google.protobuf.FileDescriptorProto message), options left out. */
export function printSchemaOnlyProto(file) {
  const syntax = file.syntax === "proto3" ? "proto3" : "proto2";
  const scope = file.package ? `.${file.package}` : "";
  const parts = [
    `// Generated from the descriptor embedded in an npm package; schema only, options left out.`,
    `syntax = "${syntax}";`,
    file.package ? `package ${file.package};` : "",
    ...file.dependency.map((d) => `import "${d}";`),
    ...file.enumType.map((e) => printEnum(e, "")),
    ...file.messageType.map((m) => printMessage(m, "", scope)),
    printExtends(file.extension, ""),
  ];
  return `${parts.filter(Boolean).join("\n\n")}\n`;
}
