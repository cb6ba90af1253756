/**
 * The peer row: what a team would hand-roll on @grpc/grpc-js for the same call: VerifyKey looks the key up by its
 * SHA-256 in memory and consumes a rate-limiter-flexible in-memory limit. Listens on PORT/HOST; serves one key,
 * PEER_KEY, which the bench target sends.
 */
import { createHash } from "node:crypto";
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type MessageShape } from "@bufbuild/protobuf";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { PEER_KEY, PEER_LIMIT } from "./peer-key.js";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../gen/keyward/v1/keys_pb.js";


type Request = MessageShape<typeof VerifyKeyRequestSchema>;
type Response = MessageShape<typeof VerifyKeyResponseSchema>;

const sha256 = (text: string) => createHash("sha256").update(text).digest("base64");
const keys = new Map([[sha256(PEER_KEY), { keyId: "key_peer", name: "peer" }]]);
const limiter = new RateLimiterMemory({ points: PEER_LIMIT.points, duration: PEER_LIMIT.durationMs / 1_000 });

async function verifyKey(call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) {
  const key = keys.get(sha256(call.request.key));
  if (!key) return callback(null, create(VerifyKeyResponseSchema, { valid: false, code: "NOT_FOUND" }));
  try {
    const limit = await limiter.consume(key.keyId);
    callback(null, create(VerifyKeyResponseSchema, {
      valid: true, code: "VALID", keyId: key.keyId, name: key.name,
      ratelimits: [{ name: "requests", limit: BigInt(PEER_LIMIT.points), remaining: BigInt(limit.remainingPoints), reset: BigInt(Date.now() + limit.msBeforeNext), exceeded: false }],
    }));
  } catch {
    callback({ code: status.RESOURCE_EXHAUSTED, details: "rate limited" });
  }
}

const server = new Server();
server.addService({
  verifyKey: {
    path: "/keyward.v1.KeysService/VerifyKey",
    requestStream: false,
    responseStream: false,
    requestSerialize: (message: Request) => Buffer.from(toBinary(VerifyKeyRequestSchema, message)),
    requestDeserialize: (bytes: Buffer) => fromBinary(VerifyKeyRequestSchema, bytes),
    responseSerialize: (message: Response) => Buffer.from(toBinary(VerifyKeyResponseSchema, message)),
    responseDeserialize: (bytes: Buffer) => fromBinary(VerifyKeyResponseSchema, bytes),
  },
}, { verifyKey });
server.bindAsync(`${process.env.HOST ?? "127.0.0.1"}:${process.env.PORT ?? 8080}`, ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
});
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
