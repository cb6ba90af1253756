import calculateSlot from "cluster-key-slot";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { startRedisServer } from "../../scripts/redis-server.mjs";
import {
  closeRedis,
  createRedisConnection,
  defineScript,
  pingRedis,
  RedisConnectError,
} from "../../src/store/redis/connection.js";
import { counterKey } from "../../src/store/redis/keys.js";
import { counterBackends } from "./counters.harness.js";

// Increments KEYS[1] only while it is below ARGV[1]; 1 when it counted, 0 when the cap was reached.
const INCR_BELOW = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
return 1
`;

const redisBackend = counterBackends().find((backend) => backend.name === "redis")!;

describe("redis connection", () => {
  let handle: Awaited<ReturnType<typeof redisBackend.open>>;
  beforeAll(async () => {
    handle = await redisBackend.open();
  });
  afterAll(async () => {
    await handle.close();
  });

  it("connects to the private server, answers PING and carries its name", async () => {
    expect(inject("redisUrl")).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    // Child processes a test spawns (servers under test) find the same server through the environment.
    expect(process.env.REDIS_URL).toBe(inject("redisUrl"));
    expect(await pingRedis(handle.redis)).toBe(true);
    expect(await handle.redis.client("GETNAME")).toMatch(/^kwtest-[0-9a-f]{8}$/);
    const key = counterKey({ prefix: handle.prefix, tag: "key_1", parts: ["probe"] });
    await handle.redis.set(key, "41");
    expect(await handle.redis.incr(key)).toBe(42);
  });

  it("runs without persistence: no RDB snapshots, no AOF", async () => {
    expect(await handle.redis.config("GET", "save")).toEqual(["save", ""]);
    expect(await handle.redis.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
  });

  it("runs a defined Lua script atomically: 200 concurrent increments capped at 50 succeed exactly 50 times", async () => {
    const clients = [handle.redis, ...(await Promise.all([1, 2, 3].map(() => createRedisConnection({ url: inject("redisUrl") }))))];
    try {
      const scripts = clients.map((client) => defineScript<number>(client, "incrBelow", INCR_BELOW, 1));
      const key = counterKey({ prefix: handle.prefix, tag: "key_cap", parts: ["n"] });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => scripts[i % scripts.length]!([key], [50])),
      );
      expect(results.filter((r) => r === 1)).toHaveLength(50);
      expect(results.filter((r) => r === 0)).toHaveLength(150);
      expect(await handle.redis.get(key)).toBe("50");
    } finally {
      await Promise.all(clients.slice(1).map((client) => closeRedis(client)));
    }
  });

  it("falls back from EVALSHA to EVAL after the script cache is flushed", async () => {
    const run = defineScript<number>(handle.redis, "incrBelow", INCR_BELOW, 1);
    const key = counterKey({ prefix: handle.prefix, tag: "key_flush", parts: ["n"] });
    expect(await run([key], [2])).toBe(1);
    await handle.redis.script("FLUSH");
    expect(await run([key], [2])).toBe(1);
    expect(await run([key], [2])).toBe(0);
    expect(await handle.redis.get(key)).toBe("2");
  });

  it("refuses a script call with the wrong number of keys", async () => {
    const run = defineScript<number>(handle.redis, "incrBelow", INCR_BELOW, 1);
    await expect(run(["a", "b"], [1])).rejects.toThrow(/takes 1 keys, got 2/);
  });
});

describe("redis key layout on a cluster-enabled server", () => {
  it("maps every counter of one tag to the tag's slot, as Redis itself computes it", async () => {
    const server = await startRedisServer({ extraArgs: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"] });
    const redis = await createRedisConnection({ url: server.url });
    try {
      const keys = ["credits", "rl:default:1700000000000", "rl:tokens:1700000060000"].map((part) =>
        counterKey({ prefix: "kw", tag: "id_3f9XkQ", parts: part.split(":") }),
      );
      const slots = await Promise.all(keys.map((key) => redis.cluster("KEYSLOT", key) as Promise<number>));
      const expected = calculateSlot("id_3f9XkQ");
      expect(slots).toEqual([expected, expected, expected]);
      expect(keys.map((key) => calculateSlot(key))).toEqual(slots);
    } finally {
      await closeRedis(redis);
      await server.stop();
    }
  });
});

describe("redis failure", () => {
  it("rejects a command quickly once redis-server is gone instead of hanging", async () => {
    const server = await startRedisServer();
    let redis: Redis | undefined;
    try {
      redis = (await createRedisConnection({ url: server.url, name: "doomed" })) as Redis;
      expect(await redis.ping()).toBe("PONG");
      await server.stop();
      const started = Date.now();
      await expect(redis.incr("kw:{key_1}:credits")).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await pingRedis(redis, { timeoutMs: 500 })).toBe(false);
      await closeRedis(redis);
      expect(redis.status).not.toBe("ready");
    } finally {
      if (redis) await closeRedis(redis);
      await server.stop();
    }
  });

  it("rejects a command that was in flight when the server died", async () => {
    const server = await startRedisServer();
    const redis = await createRedisConnection({ url: server.url });
    try {
      // BLPOP parks on the server, so the reply is still owed when the process is killed.
      const parked = redis.blpop("kw:{key_1}:never", 0);
      const outcome = parked.then(
        () => "resolved",
        (error: Error) => error.message,
      );
      await server.stop();
      expect(await outcome).not.toBe("resolved");
    } finally {
      await closeRedis(redis);
    }
  });

  it("reconnects by itself when redis-server comes back on the same port", async () => {
    const first = await startRedisServer();
    const redis = await createRedisConnection({ url: first.url });
    let second: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    try {
      await first.stop();
      await expect(redis.get("kw:{key_1}:credits")).rejects.toThrow(/enableOfflineQueue/);
      second = await startRedisServer({ port: first.port });
      const deadline = Date.now() + 10_000;
      while (!(await pingRedis(redis, { timeoutMs: 200 })) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25)); // poll interval, not a wait for time
      }
      expect(await redis.incr("kw:{key_1}:credits")).toBe(1);
    } finally {
      await closeRedis(redis);
      await second?.stop();
    }
  });

  it("fails to connect to a port with no server within the bound, with RedisConnectError", async () => {
    const server = await startRedisServer();
    await server.stop();
    const started = Date.now();
    await expect(createRedisConnection({ url: server.url, connectTimeoutMs: 1_000 })).rejects.toBeInstanceOf(
      RedisConnectError,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
