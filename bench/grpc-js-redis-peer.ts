/**
 * The gRPC Redis peer row: grpc-js-peer.ts with its counters in Redis, i.e. the verification of redis-peer-verifier.ts
 * (SHA-256 lookup, rate-limiter-flexible `RateLimiterRedis` on ioredis, a credit spent with DECRBY) served as
 * keyward.v1.KeysService/VerifyKey on @grpc/grpc-js. Listens on PORT/HOST, uses REDIS_URL; serves one key, PEER_KEY.
 */
import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type MessageShape } from "@bufbuild/protobuf";
import { Redis } from "ioredis";
import { createRedisVerifier } from "./redis-peer-verifier.js";
import { VerifyKeyRequestSchema, VerifyKeyResponseSchema } from "../gen/keyward/v1/keys_pb.js";

type Request = MessageShape<typeof VerifyKeyRequestSchema>;
type Response = MessageShape<typeof VerifyKeyResponseSchema>;

const verify = await createRedisVerifier(new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379"));

function verifyKey(call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>): void {
  verify(call.request.key).then(
    ({ credits, ratelimits, ...answer }) => callback(null, create(VerifyKeyResponseSchema, {
      ...answer,
      ...(credits !== undefined && { credits: BigInt(credits) }),
      ratelimits: ratelimits?.map((limit) => ({ ...limit, limit: BigInt(limit.limit), remaining: BigInt(limit.remaining), reset: BigInt(limit.reset) })),
    })),
    () => callback({ code: status.UNAVAILABLE, details: "redis unavailable" }),
  );
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
