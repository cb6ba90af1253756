/**
 * A peer row: the verifier a user writes in an afternoon on node:http. POST /v2/keys.verifyKey with JSON `{ key }`:
 * SHA-256 of the key, a Map lookup, a rate-limiter-flexible in-memory limit, a credit decrement in memory, and an
 * answer shaped like Keyward's. Nothing survives a restart. Listens on PORT/HOST; serves one key, PEER_KEY.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { PEER_CREDITS, PEER_KEY, PEER_LIMIT } from "./peer-key.js";
import { readJsonBody, reply } from "./http-peer-io.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("base64");
const keys = new Map([[sha256(PEER_KEY), { keyId: "key_peer", name: "peer", remaining: PEER_CREDITS }]]);
const limiter = new RateLimiterMemory({ points: PEER_LIMIT.points, duration: PEER_LIMIT.durationMs / 1_000 });

const server = createServer(async (req, res) => {
  const body = await readJsonBody(req, res);
  if (body === undefined) return;
  const meta = { requestId: `req_${randomUUID()}` };
  const key = typeof body.key === "string" ? keys.get(sha256(body.key)) : undefined;
  if (!key) return reply(res, 200, { meta, data: { valid: false, code: "NOT_FOUND" } });
  let limit: RateLimiterRes;
  try {
    limit = await limiter.consume(key.keyId);
  } catch (rejected) {
    if (!(rejected instanceof RateLimiterRes)) throw rejected;
    return reply(res, 200, { meta, data: { valid: false, code: "RATE_LIMITED", keyId: key.keyId } });
  }
  if (key.remaining <= 0) return reply(res, 200, { meta, data: { valid: false, code: "USAGE_EXCEEDED", keyId: key.keyId, credits: 0 } });
  key.remaining--;
  reply(res, 200, {
    meta,
    data: {
      valid: true, code: "VALID", keyId: key.keyId, name: key.name, credits: key.remaining,
      ratelimits: [{ name: "requests", limit: PEER_LIMIT.points, duration: PEER_LIMIT.durationMs, remaining: limit.remainingPoints, reset: Date.now() + limit.msBeforeNext, exceeded: false, autoApply: true }],
    },
  });
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
