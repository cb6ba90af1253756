import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type DescriptorProto } from "@bufbuild/protobuf/wkt";

/**
 * The leading comments of a buf image's messages, fields, services and methods, by full name (`keyward.v1.Key`,
 * `keyward.v1.Key.key_id`, `keyward.v1.KeysService.CreateKey`). The generated descriptors drop comments; the image
 * (`buf build`, source info included) keeps them.
 */
export function protoComments(image: Uint8Array): Map<string, string> {
  const comments = new Map<string, string>();
  for (const file of fromBinary(FileDescriptorSetSchema, image).file) {
    const byPath = new Map<string, string>();
    for (const location of file.sourceCodeInfo?.location ?? []) {
      const text = location.leadingComments.trim();
      if (text) byPath.set(location.path.join(","), text.split("\n").map((line) => line.trim()).join(" "));
    }
    const put = (name: string, path: number[]) => {
      const text = byPath.get(path.join(","));
      if (text) comments.set(name, text);
    };
    const visit = (message: DescriptorProto, scope: string, path: number[]) => {
      const name = `${scope}.${message.name}`;
      put(name, path);
      message.field.forEach((field, i) => put(`${name}.${field.name}`, [...path, 2, i]));
      message.nestedType.forEach((nested, i) => visit(nested, name, [...path, 3, i]));
    };
    file.messageType.forEach((message, i) => visit(message, file.package, [4, i]));
    file.service.forEach((service, s) => {
      put(`${file.package}.${service.name}`, [6, s]);
      service.method.forEach((method, m) => put(`${file.package}.${service.name}.${method.name}`, [6, s, 2, m]));
    });
  }
  return comments;
}

