/**
 * What the grpc-js peers share: keyward.v1.KeysService/VerifyKey served on @grpc/grpc-js with protobuf-es codecs,
 * listening on PORT/HOST and shut down politely on SIGTERM (so the bench frees the port at once).
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { fromBinary, toBinary, type MessageShape } from "@bufbuild/protobuf";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../gen/keyward/v1/keys_pb.js";

export type VerifyRequest = MessageShape<typeof VerifyKeyRequestSchema>;
export type VerifyResponse = MessageShape<typeof VerifyKeyResponseSchema>;

export function serveVerifyKey(verifyKey: (call: ServerUnaryCall<VerifyRequest, VerifyResponse>, callback: sendUnaryData<VerifyResponse>) => void): void {
  const server = new Server();
  server.addService({
    verifyKey: {
      path: "/keyward.v1.KeysService/VerifyKey",
      requestStream: false,
      responseStream: false,
      requestSerialize: (message: VerifyRequest) => Buffer.from(toBinary(VerifyKeyRequestSchema, message)),
      requestDeserialize: (bytes: Buffer) => fromBinary(VerifyKeyRequestSchema, bytes),
      responseSerialize: (message: VerifyResponse) => Buffer.from(toBinary(VerifyKeyResponseSchema, message)),
      responseDeserialize: (bytes: Buffer) => fromBinary(VerifyKeyResponseSchema, bytes),
    },
  }, { verifyKey });
  server.bindAsync(`${process.env.HOST ?? "127.0.0.1"}:${process.env.PORT ?? 8080}`, ServerCredentials.createInsecure(), (error) => {
    if (error) throw error;
  });
  process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
}
