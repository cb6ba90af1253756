/**
 * The gRPC Redis peer row: grpc-js-peer.ts with its counters in Redis, i.e. the verification of redis-peer-verifier.ts
 * (SHA-256 lookup, rate-limiter-flexible `RateLimiterRedis` on ioredis, a credit spent with DECRBY) served as
 * keyward.v1.KeysService/VerifyKey on @grpc/grpc-js. Listens on PORT/HOST, uses REDIS_URL; serves one key, PEER_KEY.
 */
import { status, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { Redis } from "ioredis";
import { createRedisVerifier } from "./redis-peer-verifier.js";
import { VerifyKeyResponseSchema } from "../gen/keyward/v1/keys_pb.js";
import { serveVerifyKey, type VerifyRequest as Request, type VerifyResponse as Response } from "./grpc-js-serve.js";

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

serveVerifyKey(verifyKey);
