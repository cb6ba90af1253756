/**
 * The backends a counters contract suite runs on. Usage:
 *   for (const backend of counterBackends()) describe(backend.name, () => { ... await backend.open() ... });
 * For now `open` gives the raw handle; the counters port plugs in here when it exists.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { inject } from "vitest";
import { closeRedis, createRedisConnection } from "../../src/store/redis/connection.js";

export interface RedisCounterHandle {
  redis: Redis;
  /** Key prefix owned by this handle alone: unique per test file and per `open()`. */
  prefix: string;
  close(): Promise<void>;
}

export type CounterBackend =
  /** Placeholder: the embedded counters port arrives with the keys issue; `open` resolves undefined until then. */
  | { name: "embedded"; open(): Promise<undefined> }
  /** A connected ioredis client on the run's private redis-server (`inject("redisUrl")`). */
  | { name: "redis"; open(): Promise<RedisCounterHandle> };

// Evaluated once per test file (vitest isolates files), so files running in parallel never share keys.
const filePrefix = `kwtest-${randomUUID().slice(0, 8)}`;
let opened = 0;

/** Every counter backend; each `open()` gives a fresh, isolated handle the caller closes. */
export function counterBackends(): CounterBackend[] {
  return [
    { name: "embedded", open: async () => undefined },
    {
      name: "redis",
      open: async () => {
        const redis = await createRedisConnection({ url: inject("redisUrl"), name: filePrefix });
        return { redis, prefix: `${filePrefix}-${++opened}`, close: () => closeRedis(redis) };
      },
    },
  ];
}
