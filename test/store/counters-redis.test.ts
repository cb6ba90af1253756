import { describe, expect, inject, it } from "vitest";
import { startRedisServer } from "../../scripts/redis-server.mjs";
import type { ConsumePlan } from "../../src/store/ports/counters.js";
import { closeRedis, createRedisConnection } from "../../src/store/redis/connection.js";
import { createRedisCounterStore } from "../../src/store/redis/counters.js";
import { hashedPart } from "../../src/store/redis/keys.js";
import { runWorkers } from "./counter-workers.js";
import { runCounterStoreContract } from "./counters.contract.js";
import { runIdempotencyContract } from "./counters-idempotency.contract.js";
import { counterBackends, openCounterStore } from "./counters.harness.js";

runCounterStoreContract("redis", () => openCounterStore("redis"));
runIdempotencyContract("redis", () => openCounterStore("redis"));

const redisBackend = counterBackends().find((b) => b.name === "redis")!;
const T = 1_700_000_012_345;


describe("redis counters across processes", () => {
  it("3 processes firing 500 consumes at 100 credits at once get exactly 100 VALID and leave 0", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      await store.setCredits("key_multi", "key_multi", 100, T);
      const plan: ConsumePlan = { tag: "key_multi", now: T, limits: [], credits: { keyId: "key_multi", cost: 1 } };
      expect(await runWorkers(inject("redisUrl"), handle.prefix, plan, [167, 167, 166])).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
      expect(await store.readCredits("key_multi", "key_multi")).toBe(0);
    } finally {
      await handle.close();
    }
  });

  it("3 processes firing 300 consumes against 100/window at once get exactly 100 VALID", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      const check = { bucket: "key:key_rl:default", limit: 100, duration: 60_000, cost: 1 };
      const plan: ConsumePlan = { tag: "key_rl", now: T, limits: [check] };
      expect(await runWorkers(inject("redisUrl"), handle.prefix, plan, [100, 100, 100])).toEqual({ VALID: 100, RATE_LIMITED: 200 });
      expect((await store.consume({ ...plan, limits: [{ ...check, cost: 0 }] })).limits).toEqual([
        { limit: 100, remaining: 0, reset: 1_700_000_040_000, exceeded: false },
      ]);
    } finally {
      await handle.close();
    }
  });
});

describe("redis counters layout", () => {
  it("keeps every counter of a step under the step's hash tag; windows expire after 2 × duration, balances never", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      await store.setCredits("id_shared", "key_1", 10, T);
      const result = await store.consume({
        tag: "id_shared",
        now: T,
        limits: [
          { bucket: "identity:id_shared:tokens", limit: 5, duration: 60_000, cost: 2 },
          { bucket: "key:key_1:daily{x}", limit: 100, duration: 86_400_000, cost: 1 },
        ],
        credits: { keyId: "key_1", cost: 3 },
      });
      expect(result.outcome).toBe("VALID");
      expect(result.credits).toEqual({ remaining: 7 });
      const [, keys] = await handle.redis.scan("0", "MATCH", `${handle.prefix}:*`, "COUNT", 1000);
      expect(keys).toHaveLength(3);
      expect(keys.map(hashedPart)).toEqual(["id_shared", "id_shared", "id_shared"]);
      const byKind = Object.fromEntries(
        await Promise.all(keys.map(async (key) => [key.includes(":rl:") ? (key.includes("tokens") ? "minute" : "day") : "credits", { key, ttl: await handle.redis.pttl(key) }])),
      );
      expect(await handle.redis.get(byKind.minute.key)).toBe("2");
      expect(byKind.minute.ttl).toBeGreaterThan(110_000);
      expect(byKind.minute.ttl).toBeLessThanOrEqual(120_000);
      expect(byKind.day.ttl).toBeGreaterThan(2 * 86_400_000 - 10_000);
      expect(byKind.credits.ttl).toBe(-1);
      expect(await handle.redis.hgetall(byKind.credits.key)).toEqual({ remaining: "7", lastRefillAt: String(T) });
    } finally {
      await handle.close();
    }
  });

  it("makes a step with a limit and credits one EVALSHA (one round trip) of four commands: MGET, HMGET, SET, HINCRBY", async () => {
    // A server of its own: INFO commandstats counts every client's commands.
    const server = await startRedisServer();
    const redis = await createRedisConnection({ url: server.url });
    try {
      const store = createRedisCounterStore({ redis });
      await store.setCredits("key_rt", "key_rt", 10, T);
      const plan: ConsumePlan = { tag: "key_rt", now: T, limits: [{ bucket: "key:key_rt:default", limit: 5, duration: 60_000, cost: 1 }], credits: { keyId: "key_rt", cost: 1 } };
      await store.consume(plan); // the first call on a connection may load the script (NOSCRIPT, then EVAL)
      await redis.config("RESETSTAT");
      const result = await store.consume(plan);
      expect(result).toMatchObject({ outcome: "VALID", credits: { remaining: 8 }, limits: [{ limit: 5, remaining: 3, exceeded: false }] });
      const calls = Object.fromEntries(
        [...(await redis.info("commandstats")).matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)].map(([, name, count]) => [name, Number(count)]),
      );
      expect(calls).toEqual({ evalsha: 1, mget: 1, hmget: 1, set: 1, hincrby: 1, "config|resetstat": 1 });
    } finally {
      await closeRedis(redis);
      await server.stop();
    }
  });

  it("counts a bucket named twice in one step once per naming, judged against the count before the step", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      const twice = (cost: number) => ({ bucket: "key:key_dup:default", limit: 10, duration: 60_000, cost });
      const first = await store.consume({ tag: "key_dup", now: T, limits: [twice(2), twice(3)] });
      expect(first.outcome).toBe("VALID");
      expect(first.limits.map((l) => l.remaining)).toEqual([8, 7]);
      const [, keys] = await handle.redis.scan("0", "MATCH", `${handle.prefix}:{key_dup}:*`, "COUNT", 1000);
      expect(keys).toHaveLength(1);
      expect(await handle.redis.get(keys[0]!)).toBe("5");
      expect(await handle.redis.pttl(keys[0]!)).toBeGreaterThan(110_000);
      const second = await store.consume({ tag: "key_dup", now: T, limits: [twice(5), twice(1)] });
      expect(second.outcome).toBe("VALID");
      expect(await handle.redis.get(keys[0]!)).toBe("11");
      expect((await store.consume({ tag: "key_dup", now: T, limits: [twice(0)] })).outcome).toBe("RATE_LIMITED");
    } finally {
      await handle.close();
    }
  });

  it("keeps window counts up to 2^53 − 1 exact", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      const big = 2 ** 53 - 1;
      const step = (cost: number) => store.consume({ tag: "key_bigw", now: T, limits: [{ bucket: "key:key_bigw:default", limit: big, duration: 60_000, cost }] });
      expect((await step(big - 3)).limits[0]!.remaining).toBe(3);
      expect((await step(3)).limits[0]!.remaining).toBe(0);
      const [, keys] = await handle.redis.scan("0", "MATCH", `${handle.prefix}:{key_bigw}:*`, "COUNT", 1000);
      expect(await handle.redis.get(keys[0]!)).toBe(String(big));
      expect((await step(1)).outcome).toBe("RATE_LIMITED");
      expect(await handle.redis.get(keys[0]!)).toBe(String(big));
    } finally {
      await handle.close();
    }
  });

  it("sends the consumes of one event-loop turn to Redis in script calls of at most 16 steps, one socket write each, and answers each its own", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      const plan = (keyId: string, cost: number): ConsumePlan => ({ tag: keyId, now: T, limits: [], credits: { keyId, cost } });
      const keyIds = Array.from({ length: 50 }, (_, i) => `key_${i}`);
      for (const keyId of keyIds) await store.setCredits(keyId, keyId, 100, T);
      await store.consume(plan("key_0", 0)); // loads the script, so no NOSCRIPT retry below
      // Count what reaches the socket: one call of _write or _writev is one write to the kernel.
      const stream = handle.redis.stream as unknown as { _write: (...a: unknown[]) => unknown; _writev: (...a: unknown[]) => unknown };
      const writes: string[] = [];
      const write = stream._write;
      const writev = stream._writev;
      stream._write = function (...args) {
        writes.push("write");
        return write.apply(this, args);
      };
      stream._writev = function (...args) {
        writes.push(`writev of ${(args[0] as unknown[]).length}`);
        return writev.apply(this, args);
      };
      const results = await Promise.all(keyIds.map((keyId, i) => store.consume(plan(keyId, i + 1))));
      // 50 steps: three calls of 16 sent as they fill (Redis runs them while the turn goes on), the last 2 at its end.
      expect(writes).toEqual(["write", "write", "write", "write"]);
      expect(results.map((r) => r.credits!.remaining)).toEqual(keyIds.map((_, i) => 100 - (i + 1)));
      expect(results.every((r) => r.outcome === "VALID")).toBe(true);
      expect(await handle.redis.hget(`${handle.prefix}:{key_49}:credits:key_49`, "remaining")).toBe("50");
    } finally {
      await handle.close();
    }
  });

  it("one turn's consumes in one call: each judged in order as on its own, a failing one refused alone, after a lost script cache too", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      await store.setCredits("key_a", "key_a", 3, T);
      await store.setCredits("key_b", "key_b", 10, T);
      // A key of the wrong type makes consume.lua's HMGET fail for key_c's step only.
      await handle.redis.set(`${handle.prefix}:{key_c}:credits:key_c`, "not a hash");
      await handle.redis.script("FLUSH");
      const limit = { bucket: "requests", limit: 2, duration: 60_000, cost: 1 };
      const plan = (keyId: string, cost: number, limits = [limit]): ConsumePlan => ({ tag: keyId, now: T, limits, credits: { keyId, cost } });
      const results = await Promise.allSettled([
        store.consume(plan("key_a", 1)), store.consume(plan("key_c", 1)), store.consume(plan("key_a", 1)),
        store.consume(plan("key_a", 1)), store.consume(plan("key_b", 4, [])), store.consume(plan("key_b", 7, [])),
      ]);
      const summary = results.map((r) => (r.status === "fulfilled" ? `${r.value.outcome} ${r.value.credits?.remaining}` : `refused: ${String(r.reason.message).slice(0, 9)}`));
      expect(summary).toEqual(["VALID 2", "refused: WRONGTYPE", "VALID 1", "RATE_LIMITED 1", "VALID 6", "USAGE_EXCEEDED 6"]);
      expect(await handle.redis.hget(`${handle.prefix}:{key_a}:credits:key_a`, "remaining")).toBe("1");
      expect(await handle.redis.hget(`${handle.prefix}:{key_b}:credits:key_b`, "remaining")).toBe("6");
      expect(await handle.redis.get(`${handle.prefix}:{key_c}:credits:key_c`)).toBe("not a hash");
    } finally {
      await handle.close();
    }
  });

  it("keeps working after Redis lost its script cache (EVALSHA falls back to EVAL)", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      await store.setCredits("key_f", "key_f", 3, T);
      const plan: ConsumePlan = { tag: "key_f", now: T, limits: [], credits: { keyId: "key_f", cost: 1 } };
      expect((await store.consume(plan)).credits).toEqual({ remaining: 2 });
      await handle.redis.script("FLUSH");
      expect((await store.consume(plan)).credits).toEqual({ remaining: 1 });
      await handle.redis.script("FLUSH");
      expect(await store.adjustCredits("key_f", "key_f", { operation: "increment", value: 4, now: T })).toBe(5);
    } finally {
      await handle.close();
    }
  });

  it("keeps balances up to 2^53 − 1 exact (Lua never prints a value back into Redis)", async () => {
    const handle = await redisBackend.open();
    try {
      const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
      const big = 2 ** 53 - 1;
      await store.setCredits("key_big", "key_big", big - 10, T);
      const refill = { boundary: T + 1, amount: big };
      const result = await store.consume({ tag: "key_big", now: T + 1, limits: [], credits: { keyId: "key_big", cost: 1, refill } });
      expect(result.credits).toEqual({ remaining: big - 1 });
      expect(await store.adjustCredits("key_big", "key_big", { operation: "decrement", value: 2 ** 52, now: T })).toBe(big - 1 - 2 ** 52);
    } finally {
      await handle.close();
    }
  });
});

describe("redis counters failure", () => {
  it("fails closed: with redis-server gone every method rejects quickly, none reports VALID", async () => {
    const server = await startRedisServer();
    const redis = await createRedisConnection({ url: server.url });
    try {
      const store = createRedisCounterStore({ redis });
      await store.setCredits("key_d", "key_d", 5, T);
      const plan: ConsumePlan = {
        tag: "key_d",
        now: T,
        limits: [{ bucket: "key:key_d:default", limit: 10, duration: 60_000, cost: 1 }],
        credits: { keyId: "key_d", cost: 1 },
      };
      expect((await store.consume(plan)).outcome).toBe("VALID");
      await server.stop();
      const started = Date.now();
      await expect(store.consume(plan)).rejects.toThrow();
      await expect(store.readCredits("key_d", "key_d")).rejects.toThrow();
      await expect(store.adjustCredits("key_d", "key_d", { operation: "increment", value: 1, now: T })).rejects.toThrow();
      await expect(store.setCredits("key_d", "key_d", 1, T)).rejects.toThrow();
      await expect(store.deleteCredits("key_d", "key_d")).rejects.toThrow();
      await expect(store.ping()).rejects.toThrow(/unreachable/);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await closeRedis(redis);
      await server.stop();
    }
  });

  it("rejects every call once closed", async () => {
    const store = await openCounterStore("redis");
    await store.close();
    await expect(store.consume({ tag: "key_c", now: T, limits: [] })).rejects.toThrow(/closed/);
    await expect(store.readCredits("key_c", "key_c")).rejects.toThrow(/closed/);
  });
});
