/**
 * The backends a counters contract suite runs on. Usage:
 *   for (const backend of counterBackends()) describe(backend.name, () => { ... await backend.open() ... });
 * `counterBackends()` gives raw handles (a Redis client and a private key prefix); `counterStoreBackends()` gives
 * CounterStore adapters ready for test/store/counters.contract.ts.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { inject } from "vitest";
import { createEmbeddedCounterStore } from "../../src/store/embedded/counters.js";
import type { CounterStore } from "../../src/store/ports/counters.js";
import { createRedisCounterStore } from "../../src/store/redis/counters.js";
import { closeRedis, createRedisConnection } from "../../src/store/redis/connection.js";

export interface RedisCounterHandle {
  redis: Redis;
  /** Key prefix owned by this handle alone: unique per test file and per `open()`. */
  prefix: string;
  close(): Promise<void>;
}

export interface EmbeddedCounterHandle {
  /** A fresh temporary directory, removed by `close()`. */
  dir: string;
  close(): Promise<void>;
}

export type CounterBackend =
  | { name: "embedded"; open(): Promise<EmbeddedCounterHandle> }
  /** A connected ioredis client on the run's private redis-server (`inject("redisUrl")`). */
  | { name: "redis"; open(): Promise<RedisCounterHandle> };

// Evaluated once per test file (vitest isolates files), so files running in parallel never share keys.
const filePrefix = `kwtest-${randomUUID().slice(0, 8)}`;
let opened = 0;

/** Every counter backend; each `open()` gives a fresh, isolated handle the caller closes. */
export function counterBackends(): CounterBackend[] {
  return [
    {
      name: "embedded",
      open: async () => {
        const dir = await mkdtemp(join(tmpdir(), "keyward-counters-"));
        return { dir, close: () => rm(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: "redis",
      open: async () => {
        const redis = (await createRedisConnection({ url: inject("redisUrl"), name: filePrefix })) as Redis; // a single server
        return { redis, prefix: `${filePrefix}-${++opened}`, close: () => closeRedis(redis) };
      },
    },
  ];
}

/** Opens a fresh CounterStore of one backend; its `close()` also releases what the harness made for it. */
export async function openCounterStore(name: "embedded" | "redis"): Promise<CounterStore> {
  const backend = counterBackends().find((b) => b.name === name)!;
  if (backend.name === "embedded") {
    const handle = await backend.open();
    const store = await createEmbeddedCounterStore({ dir: handle.dir });
    return { ...store, close: async () => (await store.close(), await handle.close()) };
  }
  const handle = await backend.open();
  const store = createRedisCounterStore({ redis: handle.redis, keyPrefix: handle.prefix });
  return { ...store, close: async () => (await store.close(), await handle.close()) };
}
