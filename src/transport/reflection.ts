import { createRegistry, toBinary, type DescFile, type DescService, type MessageInitShape, type Registry } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  ServerReflection, type ServerReflectionRequest, type ServerReflectionResponseSchema,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ServerReflectionV1Alpha } from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

/** The reflection services themselves, so a transport can route their (streaming) calls here. */
export const REFLECTION_SERVICES: DescService[] = [ServerReflection, ServerReflectionV1Alpha];

const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;

/**
 * gRPC server reflection (`grpc.reflection.v1` and `v1alpha`, which share one message layout), so grpcurl and
 * similar tools can list the services and describe every message with no .proto files at hand. Descriptors come
 * from the generated code: whatever the server is built from is what it describes.
 */
export function registerReflection(router: ConnectRouter, services: DescService[]): void {
  const all = [...services, ...REFLECTION_SERVICES];
  const files = new Map<string, DescFile>();
  // Keyed by the .proto path (`keyward/v1/keys.proto`), as clients ask; DescFile.name lacks the extension.
  const collect = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    file.dependencies.forEach(collect);
  };
  all.forEach((s) => collect(s.file));
  const context = { files, registry: createRegistry(...files.values()), names: all.map((s) => s.typeName).sort() };
  const answer = (request: ServerReflectionRequest) => reflect(request, context);
  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      for await (const request of requests) yield answer(request);
    },
  });
  router.service(ServerReflectionV1Alpha, {
    async *serverReflectionInfo(requests) {
      // Same fields, same numbers: v1alpha messages are answered as v1 ones.
      for await (const request of requests) yield answer(request as unknown as ServerReflectionRequest) as never;
    },
  });
}

type Response = MessageInitShape<typeof ServerReflectionResponseSchema>;

function reflect(request: ServerReflectionRequest, context: { files: Map<string, DescFile>; registry: Registry; names: string[] }): Response {
  const base = { validHost: request.host, originalRequest: request };
  const { registry } = context;
  const files = (file: DescFile | undefined, what: string): Response => file
    ? { ...base, messageResponse: { case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(file) } } }
    : { ...base, messageResponse: { case: "errorResponse", value: { errorCode: NOT_FOUND, errorMessage: `${what} not found` } } };
  const message = request.messageRequest;
  switch (message.case) {
    case "listServices":
      return { ...base, messageResponse: { case: "listServicesResponse", value: { service: context.names.map((name) => ({ name })) } } };
    case "fileByFilename":
      return files(context.files.get(message.value), `file ${message.value}`);
    case "fileContainingSymbol":
      return files(fileOfSymbol(registry, message.value), `symbol ${message.value}`);
    case "fileContainingExtension": {
      const extendee = registry.getMessage(message.value.containingType);
      const extension = extendee && registry.getExtensionFor(extendee, message.value.extensionNumber);
      return files(extension?.file, `extension ${message.value.extensionNumber} of ${message.value.containingType}`);
    }
    case "allExtensionNumbersOfType": {
      const extendee = registry.getMessage(message.value);
      if (!extendee) return files(undefined, `type ${message.value}`);
      const numbers = [...registry].filter((t) => t.kind === "extension" && t.extendee.typeName === extendee.typeName).map((t) => (t as { number: number }).number);
      return { ...base, messageResponse: { case: "allExtensionNumbersResponse", value: { baseTypeName: extendee.typeName, extensionNumber: numbers.sort((a, b) => a - b) } } };
    }
    default:
      return { ...base, messageResponse: { case: "errorResponse", value: { errorCode: INVALID_ARGUMENT, errorMessage: "the request names no reflection query" } } };
  }
}

/** The file declaring a message, enum, service, method (`pkg.Service.Method`), extension or enum value. */
function fileOfSymbol(registry: Registry, symbol: string): DescFile | undefined {
  const direct = registry.get(symbol);
  if (direct) return direct.file;
  const parent = symbol.slice(0, Math.max(0, symbol.lastIndexOf(".")));
  const service = registry.getService(parent);
  if (service?.methods.some((m) => `${parent}.${m.name}` === symbol)) return service.file;
  const message = registry.getMessage(parent);
  if (message?.fields.some((f) => `${parent}.${f.name}` === symbol)) return message.file;
  return undefined;
}

/** The file first, then every file it imports, transitively, each once: a client can build the descriptor at once. */
function withDependencies(file: DescFile): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  const visit = (f: DescFile) => {
    if (seen.has(f.name)) return;
    seen.add(f.name);
    out.push(toBinary(FileDescriptorProtoSchema, f.proto));
    f.dependencies.forEach(visit);
  };
  visit(file);
  return out;
}
