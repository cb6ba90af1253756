/**
 * The peer row: what a team would hand-roll on @grpc/grpc-js for the same call: VerifyKey looks the key up by its
 * SHA-256 in memory and consumes a rate-limiter-flexible in-memory limit. Listens on PORT/HOST; serves one key,
 * PEER_KEY, which the bench target sends.
 */
import { createHash } from "node:crypto";
import { status, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { PEER_KEY, PEER_LIMIT } from "./peer-key.js";
import { VerifyKeyResponseSchema } from "../gen/keyward/v1/keys_pb.js";
import { serveVerifyKey, type VerifyRequest as Request, type VerifyResponse as Response } from "./grpc-js-serve.js";

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

serveVerifyKey(verifyKey);
