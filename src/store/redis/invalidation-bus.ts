import type { Invalidation, InvalidationBus } from "../invalidation-bus.js";
import { isCluster, type RedisClient } from "./client-options.js";

const CHANNEL = "keyward:invalidate";

/**
 * Tells every instance subscribed on `redis` about one change, without subscribing itself: for processes such as
 * the CLI that change the document store directly while servers run.
 */
export async function publishInvalidation(redis: RedisClient, message: Invalidation, channel = CHANNEL): Promise<void> {
  await redis.publish(channel, JSON.stringify(message));
}

/**
 * Carries cache invalidations between instances over Redis pub/sub. Subscribing needs a connection of its own;
 * messages from this instance come back too, which is harmless (dropping an entry twice).
 *
 * On Redis Cluster this is plain (not sharded) pub/sub: a PUBLISH on any node reaches the subscribers of every
 * node, and the subscriber connection may sit on any node (ioredis moves it when its node goes away).
 * Invalidations are rare (management writes only), so the broadcast over the cluster bus costs little; see
 * docs/deploy.md for the measurement.
 */
export async function createRedisInvalidationBus(options: { redis: RedisClient; channel?: string }): Promise<InvalidationBus> {
  const channel = options.channel ?? CHANNEL;
  const subscriber = isCluster(options.redis)
    ? options.redis.duplicate(undefined, { enableOfflineQueue: true })
    : options.redis.duplicate({ enableOfflineQueue: true });
  const handlers: ((message: Invalidation) => void)[] = [];
  const dropAll = () => handlers.forEach((handler) => handler({ kind: "all" }));
  subscriber.on("message", (from: string, text: string) => {
    if (from !== channel) return;
    let message: Invalidation;
    try {
      message = JSON.parse(text) as Invalidation;
    } catch {
      return; // not ours
    }
    for (const handler of handlers) handler(message);
  });
  // A reconnect loses the subscription's messages in between: drop everything then, to be safe. On a cluster the
  // subscription moves to another node when its node leaves the pool, with the same gap.
  subscriber.on("ready", dropAll);
  if (isCluster(subscriber)) subscriber.on("-node", dropAll);
  subscriber.on("error", () => {});
  await subscriber.subscribe(channel);
  return {
    publish(message) {
      publishInvalidation(options.redis, message, channel).catch(() => {
        // The TTL bounds staleness when a message cannot be sent.
      });
    },
    subscribe: (handler) => void handlers.push(handler),
    async close() {
      subscriber.disconnect();
    },
  };
}
