/**
 * The verification the Redis peers share (http-redis-peer.ts, grpc-js-redis-peer.ts): what a team would hand-roll
 * with counters in Redis. The key is looked up by its SHA-256 in a Map, a rate-limiter-flexible `RateLimiterRedis`
 * limit is consumed (ioredis, default options: one EVALSHA), then one credit is spent with DECRBY (a second round trip).
 * Its own module, so that importing it starts no server.
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { PEER_KEY } from "./peer-key.js";

const LIMIT = 1_000_000_000;
const DURATION_S = 60;

export interface PeerVerification {
  valid: boolean;
  code: "VALID" | "NOT_FOUND" | "RATE_LIMITED" | "USAGE_EXCEEDED";
  keyId?: string;
  name?: string;
  credits?: number;
  ratelimits?: { name: string; limit: number; remaining: number; reset: number; exceeded: boolean }[];
}

/**
 * The peer's verification: SHA-256 lookup, RateLimiterRedis, then a credit spent with DECRBY (given back when the
 * balance went below zero). Resolves once the key's balance is seeded; a Redis failure rejects (the caller answers 503).
 */
export async function createRedisVerifier(redis: Redis): Promise<(key: string) => Promise<PeerVerification>> {
  const sha256 = (text: string) => createHash("sha256").update(text).digest("base64");
  const keys = new Map([[sha256(PEER_KEY), { keyId: "key_peer", name: "peer" }]]);
  const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: "peer-rl", points: LIMIT, duration: DURATION_S });
  const creditsKey = (keyId: string) => `peer-credits:${keyId}`;
  await redis.set(creditsKey("key_peer"), LIMIT);

  return async (text) => {
    const key = keys.get(sha256(text));
    if (!key) return { valid: false, code: "NOT_FOUND" };
    let limit: RateLimiterRes;
    let exceeded = false;
    try {
      limit = await limiter.consume(key.keyId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      limit = rejection;
      exceeded = true;
    }
    const ratelimits = [{ name: "requests", limit: LIMIT, remaining: limit.remainingPoints, reset: Date.now() + limit.msBeforeNext, exceeded }];
    if (exceeded) return { valid: false, code: "RATE_LIMITED", ...key, ratelimits };
    const credits = await redis.decrby(creditsKey(key.keyId), 1);
    if (credits < 0) {
      await redis.incrby(creditsKey(key.keyId), 1);
      return { valid: false, code: "USAGE_EXCEEDED", ...key, credits: 0, ratelimits };
    }
    return { valid: true, code: "VALID", ...key, credits, ratelimits };
  };
}
