/**
 * The Redis peer row: what a team would hand-roll on node:http for REST verification with counters in Redis.
 * POST /v2/keys.verifyKey {key} looks the key up by its SHA-256 in a Map, consumes a rate-limiter-flexible
 * `RateLimiterRedis` limit (ioredis, default options: one EVALSHA) and then spends one credit with DECRBY (a second
 * round trip), answering in Keyward's v2 shape. Listens on PORT/HOST and uses REDIS_URL; serves one key, PEER_KEY.
 * `createRedisVerifier` is shared with the gRPC Redis peer (grpc-js-redis-peer.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
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

async function main(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const verify = await createRedisVerifier(redis);
  const answer = (res: import("node:http").ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const meta = { requestId: `req_${randomUUID()}` };
      if (req.method !== "POST" || req.url !== "/v2/keys.verifyKey") return answer(res, 404, { meta, error: { status: 404 } });
      let key: unknown;
      try {
        key = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { key?: unknown }).key;
      } catch {
        // not JSON: answered below
      }
      if (typeof key !== "string" || key === "") return answer(res, 400, { meta, error: { status: 400, detail: "key is required" } });
      verify(key).then(
        (data) => answer(res, 200, { meta, data }),
        () => answer(res, 503, { meta, error: { status: 503, detail: "redis unavailable" } }),
      );
    });
  });
  server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1");
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

// Run as the peer server only when started as the entry (the gRPC Redis peer imports createRedisVerifier).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
