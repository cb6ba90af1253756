import type { Redis } from "ioredis";
import type { Invalidation, InvalidationBus } from "../../services/key-cache.js";

const CHANNEL = "keyward:invalidate";

/**
 * Tells every instance subscribed on `redis` about one change, without subscribing itself: for processes such as
 * the CLI that change the document store directly while servers run.
 */
export async function publishInvalidation(redis: Redis, message: Invalidation, channel = CHANNEL): Promise<void> {
  await redis.publish(channel, JSON.stringify(message));
}

/**
 * Carries cache invalidations between instances over Redis pub/sub. Subscribing needs a connection of its own;
 * messages from this instance come back too, which is harmless (dropping an entry twice).
 */
export async function createRedisInvalidationBus(options: { redis: Redis; channel?: string }): Promise<InvalidationBus> {
  const channel = options.channel ?? CHANNEL;
  const subscriber = options.redis.duplicate({ enableOfflineQueue: true });
  const handlers: ((message: Invalidation) => void)[] = [];
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
  // A reconnect loses the subscription's messages in between: drop everything then, to be safe.
  subscriber.on("ready", () => handlers.forEach((handler) => handler({ kind: "all" })));
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
