import { create, createFileRegistry, type DescMessage } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema,
  file_google_protobuf_struct,
} from "@bufbuild/protobuf/wkt";

/**
 * A message built at test time with every field shape the REST JSON checks and converts care about (scalars
 * of each width, lists, maps, nested messages, enums, Struct, Value), so those unit tests do not depend on the
 * product protos as they change.
 */
export function sampleSchemas(): { sample: DescMessage; inner: DescMessage } {
  const field = (name: string, number: number, type: Type, extra: Record<string, unknown> = {}) => ({
    name, number, type, label: Label.OPTIONAL, jsonName: name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), ...extra,
  });
  const repeated = { label: Label.REPEATED };
  const file = create(FileDescriptorProtoSchema, {
    name: "test/sample.proto",
    package: "test",
    syntax: "proto3",
    dependency: ["google/protobuf/struct.proto"],
    enumType: [{ name: "Color", value: [{ name: "COLOR_UNSPECIFIED", number: 0 }, { name: "COLOR_RED", number: 1 }] }],
    messageType: [
      {
        name: "Inner",
        field: [field("label", 1, Type.STRING), field("count", 2, Type.INT64)],
      },
      {
        name: "Sample",
        field: [
          field("text", 1, Type.STRING),
          field("flag", 2, Type.BOOL),
          field("small", 3, Type.INT32),
          field("big", 4, Type.INT64),
          field("unsigned_big", 5, Type.UINT64),
          field("ratio", 6, Type.DOUBLE),
          field("raw", 7, Type.BYTES),
          field("color", 8, Type.ENUM, { typeName: ".test.Color" }),
          field("inner", 9, Type.MESSAGE, { typeName: ".test.Inner" }),
          field("inners", 10, Type.MESSAGE, { typeName: ".test.Inner", ...repeated }),
          field("bigs", 11, Type.INT64, repeated),
          field("tags", 12, Type.STRING, repeated),
          field("counts", 13, Type.MESSAGE, { typeName: ".test.Sample.CountsEntry", ...repeated }),
          field("by_name", 14, Type.MESSAGE, { typeName: ".test.Sample.ByNameEntry", ...repeated }),
          field("meta", 15, Type.MESSAGE, { typeName: ".google.protobuf.Struct" }),
          field("any_value", 16, Type.MESSAGE, { typeName: ".google.protobuf.Value" }),
          field("colors", 17, Type.ENUM, { typeName: ".test.Color", ...repeated }),
        ],
        nestedType: [
          { name: "CountsEntry", options: { mapEntry: true }, field: [field("key", 1, Type.STRING), field("value", 2, Type.INT64)] },
          {
            name: "ByNameEntry", options: { mapEntry: true },
            field: [field("key", 1, Type.STRING), field("value", 2, Type.MESSAGE, { typeName: ".test.Inner" })],
          },
        ],
      },
    ],
  });
  const registry = createFileRegistry(file, (name) => (name === "google/protobuf/struct.proto" ? file_google_protobuf_struct : undefined));
  const sample = registry.getMessage("test.Sample");
  const inner = registry.getMessage("test.Inner");
  if (!sample || !inner) throw new Error("sample schema did not build");
  return { sample, inner };
}
