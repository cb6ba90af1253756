/**
 * Sizing numbers for docs/deploy.md (not a timed test): `node --expose-gc --import tsx bench/scale-sizing.ts`.
 * 1. Heap per cached key: one Keyward on the embedded store verifies N distinct keys (each lands in the key cache);
 *    the heap grows by the cache entries only (documents are already loaded before the first measurement).
 * 2. Redis memory per key's counters (MEMORY USAGE) on a private redis-server.
 * 3. Invalidation delivery on a private Redis Cluster: plain PUBLISH vs sharded SPUBLISH, publish → message.
 * 4. Consumes per second on that cluster from one process, with and without replica acknowledgement (WAIT).
 */
import { Cluster } from "ioredis";
import { startRedisCluster } from "../scripts/redis-cluster.mjs";
import { startRedisServer } from "../scripts/redis-server.mjs";
import { closeRedis, createRedisConnection } from "../src/store/redis/connection.js";
import { createRedisCounterStore } from "../src/store/redis/counters.js";
import { startKeyward } from "../test/support/keyward.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const N = Number(process.env.N ?? 5_000);

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

async function post(url: string, body: unknown, rootKey: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { data: Record<string, any> };
}

async function cachedKeyHeap() {
  const keyward = await startKeyward();
  try {
    const apiId = (await post(`${keyward.baseUrl}/v2/apis.createApi`, { name: "sizing" }, keyward.rootKey)).data.apiId;
    const keys: string[] = [];
    for (let i = 0; i < N; i++) {
      const created = await post(
        `${keyward.baseUrl}/v2/keys.createKey`,
        { apiId, name: `key-${i}`, meta: { plan: "pro", customer: `c-${i}` }, credits: { remaining: 1000 },
          ratelimits: [{ name: "minute", limit: 100, duration: 60_000, autoApply: true }] },
        keyward.rootKey,
      );
      keys.push(created.data.key);
    }
    // One verification first, so code paths and the root-key cache are warm before the baseline.
    await post(`${keyward.baseUrl}/v2/keys.verifyKey`, { key: keys[0] }, keyward.rootKey);
    const before = await heapAfterGc();
    for (const key of keys.slice(1)) await post(`${keyward.baseUrl}/v2/keys.verifyKey`, { key }, keyward.rootKey);
    const after = await heapAfterGc();
    console.log(`key cache: ${N - 1} keys cached, heap +${((after - before) / 1024 / 1024).toFixed(1)} MiB = ${Math.round((after - before) / (N - 1))} bytes per cached key`);
  } finally {
    await keyward.stop();
  }
}

async function redisCounterMemory() {
  const server = await startRedisServer();
  const redis = await createRedisConnection({ url: server.url });
  try {
    const store = createRedisCounterStore({ redis });
    const now = Date.now();
    await store.setCredits("key_3ZkqWk1hLkN8d5c9Jq2x", "key_3ZkqWk1hLkN8d5c9Jq2x", 1000, now);
    await store.consume({
      tag: "key_3ZkqWk1hLkN8d5c9Jq2x",
      now,
      limits: [{ bucket: "key:key_3ZkqWk1hLkN8d5c9Jq2x:minute", limit: 100, duration: 60_000, cost: 1 }],
      credits: { keyId: "key_3ZkqWk1hLkN8d5c9Jq2x", cost: 1 },
    });
    const [, keys] = await redis.scan("0", "MATCH", "kw:*", "COUNT", 100);
    for (const key of keys) console.log(`redis: ${key} uses ${await redis.memory("USAGE", key)} bytes`);
  } finally {
    await closeRedis(redis);
    await server.stop();
  }
}

async function consumeThroughput(url: string) {
  for (const replicas of [0, 1]) {
    const redis = await createRedisConnection({ url });
    const store = createRedisCounterStore({ redis, replicaAcks: replicas ? { replicas, timeoutMs: 500 } : undefined });
    const tags = Array.from({ length: 1_000 }, (_, i) => `key_tp${replicas}_${i}`);
    const now = Date.now();
    for (const tag of tags) await store.setCredits(tag, tag, 1_000_000, now);
    const plan = (tag: string) => ({ tag, now, limits: [{ bucket: `key:${tag}:m`, limit: 1e9, duration: 60_000, cost: 1 }], credits: { keyId: tag, cost: 1 } });
    let done = 0;
    const started = process.hrtime.bigint();
    // 200 callers in flight, like a busy instance.
    await Promise.all(Array.from({ length: 200 }, async (_, lane) => {
      for (let i = lane; i < 40_000; i += 200) {
        await store.consume(plan(tags[i % tags.length]!));
        done += 1;
      }
    }));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(`consume on 3+3 cluster, replica acks ${replicas}: ${Math.round(done / seconds)} per second (${done} in ${seconds.toFixed(1)} s, 200 in flight)`);
    await closeRedis(redis);
  }
}

async function pubsubLatency() {
  const cluster = await startRedisCluster();
  const nodes = cluster.ports.map((port) => ({ host: "127.0.0.1", port }));
  try {
    await consumeThroughput(cluster.url);
    for (const sharded of [false, true]) {
      const publisher = new Cluster(nodes, { shardedSubscribers: sharded });
      const subscriber = new Cluster(nodes, { shardedSubscribers: sharded });
      await Promise.all([new Promise((r) => publisher.once("ready", r)), new Promise((r) => subscriber.once("ready", r))]);
      const channel = "keyward:invalidate";
      let resolveMessage: () => void = () => {};
      subscriber.on(sharded ? "smessage" : "message", () => resolveMessage());
      if (sharded) await subscriber.ssubscribe(channel);
      else await subscriber.subscribe(channel);
      const samples: number[] = [];
      for (let i = 0; i < 2_000; i++) {
        const received = new Promise<void>((resolve) => (resolveMessage = resolve));
        const started = process.hrtime.bigint();
        if (sharded) await publisher.spublish(channel, '{"kind":"hash","hash":"x"}');
        else await publisher.publish(channel, '{"kind":"hash","hash":"x"}');
        await received;
        samples.push(Number(process.hrtime.bigint() - started) / 1e3);
      }
      samples.sort((a, b) => a - b);
      const at = (q: number) => samples[Math.floor(q * (samples.length - 1))]!.toFixed(0);
      console.log(`${sharded ? "sharded SPUBLISH" : "plain PUBLISH"} on 3+3 cluster: publish→message p50 ${at(0.5)} µs, p99 ${at(0.99)} µs (2000 messages)`);
      publisher.disconnect();
      subscriber.disconnect();
    }
  } finally {
    await cluster.stop();
  }
}

await cachedKeyHeap();
await redisCounterMemory();
await pubsubLatency();
