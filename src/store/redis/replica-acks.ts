import { atTurnEnd } from "../../turn-end.js";
import type { Redis } from "ioredis";
import { isCluster, type RedisClient } from "./client-options.js";
import { clusterSlot } from "./cluster-slot.js";

export interface ReplicaAckOptions {
  redis: RedisClient;
  /** How many replicas of each master must hold a write before it counts; at least 1. */
  replicas: number;
  /** How long a master may wait for them (WAIT's timeout); below the command timeout. */
  timeoutMs: number;
}

/** Raised when the replicas did not confirm in time: the caller answers 503, the write may or may not survive a failover. */
export class ReplicaAckError extends Error {
  override name = "ReplicaAckError";
}

/**
 * Returns `acknowledged(key)`: resolves once the write to `key` that this client just made (its reply has arrived) is
 * held by `replicas` replicas of the key's master (Redis WAIT), rejects with ReplicaAckError otherwise. Redis
 * replicates asynchronously, so without this a credit spent on a master that dies before replicating comes back after
 * the failover.
 *
 * One WAIT per master per event-loop turn serves every caller of that turn whose key lives there: WAIT covers all
 * earlier writes of its connection. On a cluster the master is the slot's owner in the client's slot map (a write
 * answered through ASK while its slot migrates is confirmed on the old owner only). A master that cannot be asked
 * fails its callers (fail closed); the other masters' callers are unaffected.
 */
export function createReplicaAcks(options: ReplicaAckOptions): (key: string) => Promise<void> {
  if (!Number.isInteger(options.replicas) || options.replicas < 1) throw new TypeError("replicas must be a whole number of at least 1");
  const { redis, replicas, timeoutMs } = options;
  type Caller = { resolve: () => void; reject: (error: Error) => void };
  // Callers of this turn by master ("" for a single server).
  let waiting = new Map<string, Caller[]>();

  function masterOf(nodeKey: string): Redis | undefined {
    if (!isCluster(redis)) return redis;
    return redis.nodes("master").find((node) => `${node.options.host}:${node.options.port}` === nodeKey);
  }

  function flush(): void {
    const turn = waiting;
    waiting = new Map();
    for (const [nodeKey, callers] of turn) {
      const master = masterOf(nodeKey);
      const asked = master ? (master.call("WAIT", replicas, timeoutMs) as Promise<number>) : Promise.reject(new Error(`no connection to ${nodeKey}`));
      asked.then(
        (count) => {
          if (count >= replicas) return callers.forEach((caller) => caller.resolve());
          const error = new ReplicaAckError(`a Redis master confirmed ${count} of ${replicas} replicas within ${timeoutMs} ms`);
          callers.forEach((caller) => caller.reject(error));
        },
        (cause: Error) => {
          const error = new ReplicaAckError(`Redis replicas could not be asked: ${cause.message}`, { cause });
          callers.forEach((caller) => caller.reject(error));
        },
      );
    }
  }

  return (key) =>
    new Promise<void>((resolve, reject) => {
      const nodeKey = isCluster(redis) ? (redis.slots[clusterSlot(key)]?.[0] ?? "unknown") : "";
      let callers = waiting.get(nodeKey);
      if (!callers) waiting.set(nodeKey, (callers = []));
      callers.push({ resolve, reject });
      if (waiting.size === 1 && callers.length === 1) atTurnEnd("store", flush);
    });
}
