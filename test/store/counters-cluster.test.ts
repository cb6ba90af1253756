/**
 * The Redis counter store on a real Redis Cluster (three masters, three replicas; scripts/redis-cluster.mjs):
 * the whole counters contract, spread over shards, one write per node per turn, EVALSHA/NOSCRIPT per node,
 * exact credits from three processes, and a slot migrated under load.
 */
import { randomUUID } from "node:crypto";
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterNodes, migrateSlot, ownerOfSlot, redisCli, startRedisCluster, type RedisClusterHandle } from "../../scripts/redis-cluster.mjs";
import type { ConsumePlan, CounterStore } from "../../src/store/ports/counters.js";
import { closeRedis, createRedisConnection } from "../../src/store/redis/connection.js";
import { clusterSlot } from "../../src/store/redis/cluster-slot.js";
import { createRedisCounterStore } from "../../src/store/redis/counters.js";
import { counterKey } from "../../src/store/redis/keys.js";
import { runWorkers } from "./counter-workers.js";
import { runCounterStoreContract } from "./counters.contract.js";
import { runIdempotencyContract } from "./counters-idempotency.contract.js";

const T = 1_700_000_012_345;

let cluster: RedisClusterHandle;
const clients: Cluster[] = [];

async function connect(): Promise<Cluster> {
  const redis = (await createRedisConnection({ url: cluster.url, name: "kwtest-cluster" })) as Cluster;
  clients.push(redis);
  return redis;
}

async function openStore(
  options: { replicaAcks?: { replicas: number; timeoutMs: number } } = {},
): Promise<{ store: CounterStore; redis: Cluster; prefix: string }> {
  const redis = await connect();
  const prefix = `kwc-${randomUUID().slice(0, 8)}`;
  return { store: createRedisCounterStore({ redis, keyPrefix: prefix, ...options }), redis, prefix };
}

beforeAll(async () => {
  cluster = await startRedisCluster();
});
afterAll(async () => {
  for (const redis of clients) await closeRedis(redis);
  await cluster?.stop();
});

runCounterStoreContract("redis cluster", async () => (await openStore()).store);
runIdempotencyContract("redis cluster", async () => (await openStore()).store);

describe("redis counters on a cluster", () => {
  it("spreads tags over every master and sends one turn's consumes as one write per master", async () => {
    const { store, redis } = await openStore();
    const tags = Array.from({ length: 60 }, (_, i) => `key_spread${i}`);
    for (const tag of tags) await store.setCredits(tag, tag, 100, T);
    const plan = (tag: string, cost: number): ConsumePlan => ({ tag, now: T, limits: [], credits: { keyId: tag, cost } });
    // Loads the script on every master first, so no NOSCRIPT retry adds a write below.
    await Promise.all(tags.map((tag) => store.consume(plan(tag, 0))));

    const masters = redis.nodes("master");
    expect(masters).toHaveLength(3);
    const writes = new Map<string, number[]>();
    for (const node of masters) {
      const stream = node.stream as unknown as { _write: (...a: unknown[]) => unknown; _writev: (...a: unknown[]) => unknown };
      const seen: number[] = [];
      writes.set(String(node.options.port), seen);
      const write = stream._write;
      const writev = stream._writev;
      stream._write = function (...args) {
        seen.push(1);
        return write.apply(this, args);
      };
      stream._writev = function (...args) {
        seen.push((args[0] as unknown[]).length);
        return writev.apply(this, args);
      };
    }
    const results = await Promise.all(tags.map((tag, i) => store.consume(plan(tag, 1 + (i % 5)))));
    expect(results.map((r) => r.credits!.remaining)).toEqual(tags.map((_, i) => 100 - (1 + (i % 5))));
    // Every master got a share, in exactly one socket write each.
    const perMaster = [...writes.values()];
    expect(perMaster.map((seen) => seen.length)).toEqual([1, 1, 1]);
    expect(perMaster.every((seen) => seen[0]! > 0)).toBe(true);
    expect(perMaster.reduce((sum, seen) => sum + seen[0]!, 0)).toBe(60);
  });

  it("keeps working after every master lost its script cache (EVALSHA falls back to EVAL per node)", async () => {
    const { store } = await openStore();
    const tags = Array.from({ length: 12 }, (_, i) => `key_noscript${i}`);
    for (const tag of tags) await store.setCredits(tag, tag, 5, T);
    const plan = (tag: string): ConsumePlan => ({
      tag,
      now: T,
      limits: [{ bucket: `key:${tag}:default`, limit: 10, duration: 60_000, cost: 1 }],
      credits: { keyId: tag, cost: 1 },
    });
    await Promise.all(tags.map((tag) => store.consume(plan(tag))));
    for (const port of await cluster.masterPorts()) expect((await redisCli(port, ["script", "flush"])).trim()).toBe("OK");
    const results = await Promise.all(tags.map((tag) => store.consume(plan(tag))));
    expect(results.map((r) => [r.outcome, r.credits!.remaining, r.limits[0]!.remaining])).toEqual(tags.map(() => ["VALID", 3, 8]));
    for (const port of await cluster.masterPorts()) await redisCli(port, ["script", "flush"]);
    expect(await Promise.all(tags.map((tag) => store.adjustCredits(tag, tag, { operation: "increment", value: 2, now: T })))).toEqual(tags.map(() => 5));
  });

  it("3 processes firing 500 consumes at 100 credits at once get exactly 100 VALID and leave 0", async () => {
    const { store, prefix } = await openStore();
    await store.setCredits("key_multi", "key_multi", 100, T);
    const plan: ConsumePlan = { tag: "key_multi", now: T, limits: [], credits: { keyId: "key_multi", cost: 1 } };
    expect(await runWorkers(cluster.url, prefix, plan, [167, 167, 166])).toEqual({ VALID: 100, USAGE_EXCEEDED: 400 });
    expect(await store.readCredits("key_multi", "key_multi")).toBe(0);
  });

  it("computes the slot of a key exactly as Redis does (hash tags, escapes, non-ASCII)", async () => {
    const keys = [
      "plain", "", "{}", "{}x", "a{b}c", "a{}{b}", "a{b", "kw:{key_1}:credits:key_1", "ünïcode{ß}", "{user1000}.following",
      ...Array.from({ length: 40 }, (_, i) => counterKey({ prefix: "kw", tag: `id_${i}:{x}%`, parts: ["rl", `b${i}`, 60_000] })),
    ];
    for (const key of keys) expect(clusterSlot(key), key).toBe(Number(await redisCli(cluster.ports[0]!, ["cluster", "keyslot", key])));
  });

  it("with replica acks, a count answers only once a replica holds it: a frozen replica fails its shard's calls, not the others'", async () => {
    const { store, redis, prefix } = await openStore({ replicaAcks: { replicas: 1, timeoutMs: 1_000 } });
    const tags = Array.from({ length: 30 }, (_, i) => `key_ack${i}`);
    for (const tag of tags) await store.setCredits(tag, tag, 10, T);
    const plan = (tag: string): ConsumePlan => ({ tag, now: T, limits: [], credits: { keyId: tag, cost: 1 } });
    expect((await Promise.all(tags.map((tag) => store.consume(plan(tag))))).map((r) => r.credits!.remaining)).toEqual(tags.map(() => 9));

    // Freeze the replica of the master serving the first tag.
    const slot = Number(await redis.cluster("KEYSLOT", `${prefix}:{${tags[0]}}:credits:${tags[0]}`));
    const masterPort = await ownerOfSlot(cluster.ports[0]!, slot);
    const nodes = await clusterNodes(masterPort);
    const masterId = nodes.find((node) => node.port === masterPort)!.id;
    const replicaPort = nodes.find((node) => node.masterId === masterId)!.port;
    const replica = cluster.servers.find((server) => server.port === replicaPort)!;
    const onFrozenShard = async (tag: string) => (await ownerOfSlot(masterPort, Number(await redisCli(masterPort, ["cluster", "keyslot", `${prefix}:{${tag}}:credits:${tag}`])))) === masterPort;
    const frozen = new Set<string>();
    for (const tag of tags) if (await onFrozenShard(tag)) frozen.add(tag);
    expect(frozen.size).toBeGreaterThan(0);
    expect(frozen.size).toBeLessThan(tags.length);

    process.kill(replica.pid!, "SIGSTOP");
    let settled: PromiseSettledResult<Awaited<ReturnType<CounterStore["consume"]>>>[];
    try {
      settled = await Promise.allSettled(tags.map((tag) => store.consume(plan(tag))));
    } finally {
      process.kill(replica.pid!, "SIGCONT");
    }
    tags.forEach((tag, i) => {
      const result = settled[i]!;
      if (frozen.has(tag)) {
        expect(result.status, tag).toBe("rejected");
        expect((result as PromiseRejectedResult).reason.name).toBe("ReplicaAckError");
      } else {
        expect(result.status === "fulfilled" && result.value.credits, tag).toEqual({ remaining: 8 });
      }
    });
    // Once the replica is back, the shard answers again, and the unconfirmed spend stayed spent (never given back).
    await cluster.waitHealthy();
    const again = await store.consume(plan(tags[0]!));
    expect(again.credits).toEqual({ remaining: 7 });
  });

  it("migrating a tag's slot to another master under load loses no acknowledged write and ends on the new master", async () => {
    const { store, redis, prefix } = await openStore();
    const tag = "key_moving";
    await store.setCredits(tag, tag, 100_000, T);
    const key = `${prefix}:{${tag}}:credits:${tag}`;
    const slot = Number(await redis.cluster("KEYSLOT", key));
    const masters = await cluster.masterPorts();
    const fromPort = await ownerOfSlot(masters[0]!, slot);
    const toPort = masters.find((port) => port !== fromPort)!;

    // Credits alone: one key, so ASK is followed at once. With a window: several keys, TRYAGAIN while half moved.
    const creditsOnly: ConsumePlan = { tag, now: T, limits: [], credits: { keyId: tag, cost: 1 } };
    const withWindow: ConsumePlan = { ...creditsOnly, limits: [{ bucket: `key:${tag}:default`, limit: 10_000, duration: 60_000, cost: 1 }] };
    const tally = { VALID: 0, USAGE_EXCEEDED: 0, RATE_LIMITED: 0, failed: 0, done: 0, windowValid: 0 };
    // Load runs until 100 calls after the migration finished.
    let migratedAt = Infinity;
    const lane = async (plan: ConsumePlan) => {
      while (tally.done < migratedAt + 100) {
        try {
          const { outcome } = await store.consume(plan);
          tally[outcome] += 1;
          if (outcome === "VALID" && plan === withWindow) tally.windowValid += 1;
        } catch {
          tally.failed += 1;
        }
        tally.done += 1;
      }
    };
    const lanes = Array.from({ length: 6 }, (_, i) => lane(i % 2 ? withWindow : creditsOnly));
    const marks: number[] = [];
    const progress = async () => {
      const target = tally.done + 10;
      while (tally.done < target) await new Promise((resolve) => setImmediate(resolve));
      marks.push(tally.done);
    };
    const before = await redirections([fromPort, toPort]);
    await progress();
    const { moved } = await migrateSlot({ slot, fromPort, toPort, masterPorts: masters, between: progress });
    marks.push((migratedAt = tally.done));
    await Promise.all(lanes);

    const seen = subtract(await redirections([fromPort, toPort]), before);
    expect(moved).toBeGreaterThanOrEqual(1);
    // The clients really were redirected mid-move (counted by Redis itself) and still nothing failed for good.
    expect(seen.ASK + seen.TRYAGAIN).toBeGreaterThan(0);
    // Load ran before, during each phase of, and after the migration.
    expect(marks[0]).toBeGreaterThan(0);
    expect(marks).toEqual([...marks].sort((a, b) => a - b));
    expect(tally.done).toBeGreaterThanOrEqual(migratedAt + 100);
    expect(tally.RATE_LIMITED).toBe(0);
    const remaining = await store.readCredits(tag, tag);
    // Every VALID took exactly one credit, wherever the key lived at the time; nothing was counted twice.
    expect(tally.VALID + remaining!).toBe(100_000);
    expect(tally.VALID + tally.failed).toBe(tally.done);
    const window = await store.consume({ ...withWindow, limits: [{ ...withWindow.limits[0]!, cost: 0 }], credits: undefined });
    expect(window.limits[0]!.remaining).toBe(10_000 - tally.windowValid);
    console.log(`slot migration under load: ${JSON.stringify(tally)}, redirections ${JSON.stringify(seen)}, marks ${marks.join(" ")}`);
    expect(await ownerOfSlot(fromPort, slot)).toBe(toPort);
    expect(Number(await redisCli(toPort, ["cluster", "countkeysinslot", String(slot)]))).toBeGreaterThanOrEqual(1);
    expect(Number(await redisCli(fromPort, ["cluster", "countkeysinslot", String(slot)]))).toBe(0);
    // And the store goes on answering from the new owner.
    expect((await store.consume({ ...creditsOnly, credits: { keyId: tag, cost: 0 } })).credits).toEqual({ remaining: remaining! });
  });
});

type Redirections = Record<"ASK" | "TRYAGAIN" | "MOVED", number>;

/** How many ASK, TRYAGAIN and MOVED replies the nodes on `ports` have sent (Redis' own INFO errorstats). */
async function redirections(ports: number[]): Promise<Redirections> {
  const total: Redirections = { ASK: 0, TRYAGAIN: 0, MOVED: 0 };
  for (const port of ports) {
    const info = await redisCli(port, ["info", "errorstats"]);
    for (const kind of Object.keys(total) as (keyof Redirections)[]) {
      total[kind] += Number(new RegExp(`errorstat_${kind}:count=(\\d+)`).exec(info)?.[1] ?? 0);
    }
  }
  return total;
}

function subtract(after: Redirections, before: Redirections): Redirections {
  return { ASK: after.ASK - before.ASK, TRYAGAIN: after.TRYAGAIN - before.TRYAGAIN, MOVED: after.MOVED - before.MOVED };
}


// Last: it stops the whole cluster.
describe("redis counters on a cluster that is gone", () => {
  it("fails closed: with every node down each method rejects within the bounds, none reports VALID", async () => {
    const { store } = await openStore();
    await store.setCredits("key_gone", "key_gone", 5, T);
    const plan: ConsumePlan = {
      tag: "key_gone",
      now: T,
      limits: [{ bucket: "key:key_gone:default", limit: 10, duration: 60_000, cost: 1 }],
      credits: { keyId: "key_gone", cost: 1 },
    };
    expect((await store.consume(plan)).outcome).toBe("VALID");
    await cluster.stop();
    const started = Date.now();
    await expect(store.consume(plan)).rejects.toThrow();
    await expect(store.readCredits("key_gone", "key_gone")).rejects.toThrow();
    await expect(store.adjustCredits("key_gone", "key_gone", { operation: "increment", value: 1, now: T })).rejects.toThrow();
    await expect(store.setCredits("key_gone", "key_gone", 1, T)).rejects.toThrow();
    await expect(store.ping()).rejects.toThrow(/unreachable/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
