/**
 * The Redis counter store on a Sentinel-managed master (scripts/redis-sentinel.mjs: master, replica, one sentinel):
 * exact counts through the master the sentinel names, and a master SIGKILLed under load: calls fail (the caller
 * answers 503) while the sentinel fails over, then succeed on the promoted replica, never granting more than the credits.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisSentinel, type RedisSentinelHandle } from "../../scripts/redis-sentinel.mjs";
import type { Invalidation } from "../../src/store/invalidation-bus.js";
import type { ConsumePlan } from "../../src/store/ports/counters.js";
import { closeRedis, createRedisConnection } from "../../src/store/redis/connection.js";
import { createRedisCounterStore } from "../../src/store/redis/counters.js";
import { createRedisInvalidationBus } from "../../src/store/redis/invalidation-bus.js";

const T = 1_700_000_012_345;
let setup: RedisSentinelHandle;
let redis: Redis;

beforeAll(async () => {
  setup = await startRedisSentinel();
  redis = (await createRedisConnection({ url: setup.url, name: "kwtest-sentinel" })) as Redis;
});
afterAll(async () => {
  if (redis) await closeRedis(redis);
  await setup?.stop();
});

describe("redis counters through Sentinel", () => {
  it("connects to the master the sentinel names; 500 concurrent consumes of 100 credits give exactly 100 VALID", async () => {
    expect(redis.options.sentinels).toEqual([{ host: "127.0.0.1", port: setup.sentinel.port }]);
    expect((await redis.info("server")).match(/tcp_port:(\d+)/)![1]).toBe(String(setup.master.port));
    const store = createRedisCounterStore({ redis, keyPrefix: `kws-${randomUUID().slice(0, 8)}` });
    await store.setCredits("key_s", "key_s", 100, T);
    const plan: ConsumePlan = { tag: "key_s", now: T, limits: [], credits: { keyId: "key_s", cost: 1 } };
    const results = await Promise.all(Array.from({ length: 500 }, () => store.consume(plan)));
    expect(results.filter((r) => r.outcome === "VALID")).toHaveLength(100);
    expect(await store.readCredits("key_s", "key_s")).toBe(0);
  });

  it("carries cache invalidations between two clients", async () => {
    const other = await createRedisConnection({ url: setup.url, name: "kwtest-sentinel-2" });
    try {
      const bus = await createRedisInvalidationBus({ redis: other });
      const received = new Promise<Invalidation>((resolve) => bus.subscribe((message) => message.kind !== "all" && resolve(message)));
      const sender = await createRedisInvalidationBus({ redis });
      sender.publish({ kind: "hash", hash: "h1" });
      expect(await received).toEqual({ kind: "hash", hash: "h1" });
      await bus.close();
      await sender.close();
    } finally {
      await closeRedis(other);
    }
  });

  it("fails while the master is down, follows the failover to the replica, and never grants more than the credits", async () => {
    const store = createRedisCounterStore({ redis, keyPrefix: `kws-${randomUUID().slice(0, 8)}` });
    const credits = 300;
    await store.setCredits("key_f", "key_f", credits, T);
    // The balance must be on the replica before the master dies: replication is asynchronous, and a balance the
    // replica never received reads as 0 after the failover (fail closed), so nothing would be VALID after it.
    expect(await redis.wait(1, 5_000)).toBe(1);
    const plan: ConsumePlan = { tag: "key_f", now: T, limits: [], credits: { keyId: "key_f", cost: 1 } };
    const seen = { VALID: 0, USAGE_EXCEEDED: 0, RATE_LIMITED: 0, failed: 0, validAfterOutage: 0, exhaustedAfterOutage: 0 };
    let killedAt = 0;
    const lane = async () => {
      while (seen.exhaustedAfterOutage < 20) {
        if (killedAt && Date.now() - killedAt > 30_000) throw new Error(`no recovery within 30 s: ${JSON.stringify(seen)}`);
        try {
          const { outcome } = await store.consume(plan);
          seen[outcome] += 1;
          if (seen.failed && outcome === "VALID") seen.validAfterOutage += 1;
          if (seen.failed && outcome === "USAGE_EXCEEDED") seen.exhaustedAfterOutage += 1;
        } catch {
          seen.failed += 1;
          await new Promise((resolve) => setTimeout(resolve, 5)); // a caller backing off, not a wait for time
        }
        if (!killedAt && seen.VALID >= 50) {
          killedAt = Date.now();
          process.kill(setup.master.pid!, "SIGKILL");
        }
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);

    expect(seen.failed).toBeGreaterThan(0);
    expect(seen.validAfterOutage).toBeGreaterThan(0);
    expect(await setup.masterPort()).toBe(setup.replica.port);
    expect((await redis.info("server")).match(/tcp_port:(\d+)/)![1]).toBe(String(setup.replica.port));
    expect(seen.VALID).toBeLessThanOrEqual(credits);
    expect(await store.readCredits("key_f", "key_f")).toBe(0);
    console.log(`sentinel failover under load: ${JSON.stringify(seen)}, ${Date.now() - killedAt} ms from kill to the end`);
  });
});
