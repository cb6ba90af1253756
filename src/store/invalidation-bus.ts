// The cache-invalidation port, on the store floor: its Redis adapter (redis/invalidation-bus.ts) implements it and
// the caches above (services/key-cache.ts) use it.

/**
 * What other instances are told after a change; the same messages clear this instance's caches. Each cache acts on
 * the kinds it holds: keys by `hash`, standalone rate-limit overrides by namespace; `all` clears every cache.
 */
export type Invalidation =
  | { kind: "hash"; hash: string }
  | { kind: "ratelimit-overrides"; namespaceId: string }
  | { kind: "webhooks"; workspaceId: string }
  | { kind: "all" };

export interface InvalidationBus {
  publish(message: Invalidation): void;
  subscribe(handler: (message: Invalidation) => void): void;
  close(): Promise<void>;
}

/** A bus for one process: there is no one else to tell. */
export function createLocalInvalidationBus(): InvalidationBus {
  const handlers: ((message: Invalidation) => void)[] = [];
  return {
    publish: (message) => handlers.forEach((handler) => handler(message)),
    subscribe: (handler) => void handlers.push(handler),
    close: async () => {},
  };
}
