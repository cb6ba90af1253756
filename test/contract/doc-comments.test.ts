import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type DescriptorProto, type EnumDescriptorProto, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { writeProtoDeps } from "../../scripts/proto-deps.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

// SourceCodeInfo paths (descriptor.proto field numbers): a file's message_type 4, enum_type 5, service 6; a
// message's field 2, nested_type 3, enum_type 4; an enum's value 2; a service's method 2.
const MESSAGE = 4, ENUM = 5, SERVICE = 6, FIELD = 2, NESTED = 3, NESTED_ENUM = 4, VALUE = 2, METHOD = 2;

/** Compiles proto/keyward with buf (source info kept) from a scratch copy, so no checkout folder is touched. */
function buildKeywardFiles(): FileDescriptorProto[] {
  const dir = mkdtempSync(join(tmpdir(), "keyward-doc-"));
  try {
    writeProtoDeps(dir);
    cpSync(join(root, "proto/keyward"), join(dir, "keyward"), { recursive: true });
    const image = execFileSync(join(root, "node_modules/.bin/buf"), ["build", dir, "--as-file-descriptor-set", "-o", "-#format=binpb"], { maxBuffer: 64 << 20 });
    return fromBinary(FileDescriptorSetSchema, image).file.filter((f) => f.name.startsWith("keyward/"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every service, RPC, message, field, enum and enum value of `file`, as [full name, source path]. */
function documentables(file: FileDescriptorProto): Array<[string, number[]]> {
  const out: Array<[string, number[]]> = [];
  const enumEntries = (en: EnumDescriptorProto, scope: string, path: number[]) => {
    out.push([`${scope}.${en.name}`, path]);
    en.value.forEach((v, i) => out.push([`${scope}.${en.name}.${v.name}`, [...path, VALUE, i]]));
  };
  const messageEntries = (message: DescriptorProto, scope: string, path: number[]) => {
    if (message.options?.mapEntry) return;
    const name = `${scope}.${message.name}`;
    out.push([name, path]);
    message.field.forEach((f, i) => out.push([`${name}.${f.name}`, [...path, FIELD, i]]));
    message.nestedType.forEach((m, i) => messageEntries(m, name, [...path, NESTED, i]));
    message.enumType.forEach((e, i) => enumEntries(e, name, [...path, NESTED_ENUM, i]));
  };
  file.messageType.forEach((m, i) => messageEntries(m, file.package, [MESSAGE, i]));
  file.enumType.forEach((e, i) => enumEntries(e, file.package, [ENUM, i]));
  file.service.forEach((s, i) => {
    out.push([`${file.package}.${s.name}`, [SERVICE, i]]);
    s.method.forEach((m, j) => out.push([`${file.package}.${s.name}.${m.name}`, [SERVICE, i, METHOD, j]]));
  });
  return out;
}

describe("proto/keyward doc comments", () => {
  const files = buildKeywardFiles();

  it("every service, RPC, message, field, enum and enum value has a leading comment", () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    const undocumented: string[] = [];
    let checked = 0;
    for (const file of files) {
      const comments = new Map(file.sourceCodeInfo!.location.map((l) => [l.path.join("."), l.leadingComments.trim()]));
      for (const [name, path] of documentables(file)) {
        checked++;
        if (!comments.get(path.join("."))) undocumented.push(`${file.name}: ${name}`);
      }
    }
    expect(checked).toBeGreaterThan(400);
    expect(undocumented).toEqual([]);
  });
});
