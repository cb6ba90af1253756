/**
 * The Redis peer row on node:http: POST /v2/keys.verifyKey {key} through the shared Redis verification
 * (redis-peer-verifier.ts), answering in Keyward's v2 shape (503 when Redis fails). Listens on PORT/HOST and uses
 * REDIS_URL; serves one key, PEER_KEY.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Redis } from "ioredis";
import { readJsonBody, reply } from "./http-peer-io.js";
import { createRedisVerifier } from "./redis-peer-verifier.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const verify = await createRedisVerifier(redis);

const server = createServer(async (req, res) => {
  const body = await readJsonBody(req, res);
  if (body === undefined) return;
  const meta = { requestId: `req_${randomUUID()}` };
  if (typeof body.key !== "string" || body.key === "") return reply(res, 400, { meta, error: { status: 400, detail: "key is required" } });
  try {
    reply(res, 200, { meta, data: await verify(body.key) });
  } catch {
    reply(res, 503, { meta, error: { status: 503, detail: "redis unavailable" } });
  }
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
