import { create, createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { describe, expect, it } from "vitest";
import { ServerReflection, type ServerReflectionRequest, type ServerReflectionResponse } from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ServerReflectionV1Alpha } from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { useKeyward } from "../support/use-keyward.js";

type Query = ServerReflectionRequest["messageRequest"];

/** The files in an order where each comes after its imports, as a FileDescriptorSet must be. */
function dependenciesFirst(files: FileDescriptorProto[]): FileDescriptorProto[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const out: FileDescriptorProto[] = [];
  const visit = (file: FileDescriptorProto) => {
    if (out.includes(file)) return;
    file.dependency.forEach((name) => visit(byName.get(name) as FileDescriptorProto));
    out.push(file);
  };
  files.forEach(visit);
  return out;
}

describe("gRPC server reflection", () => {
  const harness = useKeyward();

  /** Sends the queries on one reflection stream, as grpcurl does, and returns the answers in order. */
  async function ask(queries: Query[], service: typeof ServerReflection = ServerReflection): Promise<ServerReflectionResponse[]> {
    const client = createClient(service, createGrpcTransport({ baseUrl: harness.keyward.baseUrl }));
    async function* requests() {
      for (const messageRequest of queries) yield { host: "localhost", messageRequest };
    }
    const answers: ServerReflectionResponse[] = [];
    for await (const answer of client.serverReflectionInfo(requests())) answers.push(answer);
    return answers;
  }

  const descriptors = (answer: ServerReflectionResponse): FileDescriptorProto[] => {
    if (answer.messageResponse.case !== "fileDescriptorResponse") throw new Error(`no files: ${answer.messageResponse.case}`);
    return answer.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  };

  it("lists every service, health and reflection included (`grpcurl list`)", async () => {
    const [answer] = await ask([{ case: "listServices", value: "" }]);
    expect(answer.validHost).toBe("localhost");
    expect(answer.messageResponse.case).toBe("listServicesResponse");
    const names = answer.messageResponse.case === "listServicesResponse" ? answer.messageResponse.value.service.map((s) => s.name) : [];
    expect(names).toEqual(expect.arrayContaining([
      "keyward.v1.ApisService", "keyward.v1.KeysService", "keyward.v1.IdentitiesService", "keyward.v1.PermissionsService",
      "keyward.v1.RatelimitService", "keyward.v1.RootKeysService", "keyward.v1.WorkspacesService", "keyward.v1.LivenessService",
      "keyward.v1.AnalyticsService", "keyward.v1.AuditLogsService", "keyward.v1.WebhooksService",
      "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
    ]));
    expect(names).toHaveLength(14);
  });

  it("describes a service and its messages from the files it sends, dependencies included (`grpcurl describe`)", async () => {
    const [bySymbol, byMethod] = await ask([
      { case: "fileContainingSymbol", value: "keyward.v1.KeysService" },
      { case: "fileContainingSymbol", value: "keyward.v1.KeysService.VerifyKey" },
    ]);
    const files = descriptors(bySymbol);
    expect(files[0].name).toBe("keyward/v1/keys.proto");
    expect(descriptors(byMethod)[0].name).toBe("keyward/v1/keys.proto");
    // Every import of every file sent is sent too, so the client can build the whole schema from one answer.
    const names = new Set(files.map((f) => f.name));
    for (const file of files) for (const dependency of file.dependency) expect(names.has(dependency), dependency).toBe(true);
    expect(names).toContain("buf/validate/validate.proto");
    expect(names).toContain("google/api/annotations.proto");

    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: dependenciesFirst(files) }));
    const verify = registry.getService("keyward.v1.KeysService")?.methods.find((m) => m.name === "VerifyKey");
    expect(verify?.input.typeName).toBe("keyward.v1.VerifyKeyRequest");
    expect(verify?.input.fields.map((f) => f.name)).toContain("key");
    expect(verify?.output.fields.map((f) => f.name)).toEqual(expect.arrayContaining(["valid", "code", "credits"]));
  });

  it("finds files by name and messages by name, and answers NOT_FOUND for unknown symbols", async () => {
    const [byName, byMessage, unknown] = await ask([
      { case: "fileByFilename", value: "keyward/v1/apis.proto" },
      { case: "fileContainingSymbol", value: "keyward.v1.CreateApiRequest" },
      { case: "fileContainingSymbol", value: "keyward.v1.NoSuchThing" },
    ]);
    expect(descriptors(byName)[0].name).toBe("keyward/v1/apis.proto");
    expect(descriptors(byMessage)[0].name).toBe("keyward/v1/apis.proto");
    expect(unknown.messageResponse).toEqual({
      case: "errorResponse",
      value: expect.objectContaining({ errorCode: 5, errorMessage: "symbol keyward.v1.NoSuchThing not found" }),
    });
  });

  it("serves v1alpha as well", async () => {
    const [answer] = await ask([{ case: "listServices", value: "" }], ServerReflectionV1Alpha as unknown as typeof ServerReflection);
    expect(answer.messageResponse.case).toBe("listServicesResponse");
  });
});
