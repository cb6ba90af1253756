import type { Clock } from "../domain/clock.js";
import type { Invalidation, InvalidationBus } from "../store/invalidation-bus.js";
import type { ApiRecord } from "../store/ports/apis.js";
import type { IdentityRecord, KeyRecord } from "../store/ports/key-records.js";

/** Everything verification needs about a key, resolved once and cached by hash. */
export interface VerifiableKey {
  key: KeyRecord;
  api: ApiRecord;
  identity?: IdentityRecord;
  /** Effective permissions: direct ∪ those of the key's roles. Any role or permission change invalidates all. */
  permissions: string[];
}

interface Entry<V> {
  value: V | null;
  expiresAt: number;
}

/**
 * A bounded LRU of keys by hash (verifiable keys by default; authentication caches root keys in another), including
 * "no such key" answers. Mutations call `invalidate` before they answer, so the next request on this instance sees
 * them; the bus carries them to other instances. The TTL bounds staleness should a message be lost.
 */
export function createKeyCache<V = VerifiableKey>(options: { clock: Clock; bus: InvalidationBus; maxEntries?: number; ttlMs?: number }) {
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? 60_000;
  const entries = new Map<string, Entry<V>>();
  // Bumped by every invalidation. A lookup that read the store before an invalidation may hold the old record, so
  // it must not be cached once the epoch has moved on (else the stale record would outlive the invalidation).
  let epoch = 0;
  // The entry last moved to the end: using it again needs no move (a hot key verified over and over).
  let lastUsed: string | undefined;
  // Lookups answered here or not, for the metrics (read at scrape time).
  let hits = 0;
  let misses = 0;

  function drop(message: Invalidation) {
    if (message.kind === "ratelimit-overrides" || message.kind === "webhooks") return; // not held here
    epoch++;
    if (message.kind === "all") entries.clear();
    else entries.delete(message.hash);
  }
  options.bus.subscribe(drop);

  /** undefined: not cached; null: cached as unknown. */
  function get(hash: string): V | null | undefined {
    const entry = entries.get(hash);
    if (!entry) {
      misses++;
      return undefined;
    }
    if (entry.expiresAt <= options.clock.now()) {
      entries.delete(hash);
      misses++;
      return undefined;
    }
    hits++;
    if (hash !== lastUsed) {
      entries.delete(hash);
      entries.set(hash, entry); // most recently used last
      lastUsed = hash;
    }
    return entry.value;
  }

  /** Caches `value` unless an invalidation arrived since `readAt` (the epoch taken before reading it). */
  function set(hash: string, value: V | null, readAt: number): void {
    if (readAt !== epoch) return;
    entries.delete(hash);
    entries.set(hash, { value, expiresAt: options.clock.now() + ttlMs });
    lastUsed = hash;
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
  }

  /**
   * `load`, but a cached answer comes back as it is, not in a promise: a hot path (authentication, verification)
   * then takes no extra microtask turn for it. Only a miss returns a promise. `read` gets the hash, so a caller can
   * pass one function made once rather than a closure per lookup.
   */
  function lookup(hash: string, read: (hash: string) => Promise<V | undefined>, options: { cacheMissing: boolean }): V | undefined | Promise<V | undefined> {
    const cached = get(hash);
    if (cached !== undefined) return cached ?? undefined;
    return readThrough(hash, read, options.cacheMissing);
  }

  async function readThrough(hash: string, read: (hash: string) => Promise<V | undefined>, cacheMissing: boolean): Promise<V | undefined> {
    const readAt = epoch;
    const value = await read(hash);
    if (value !== undefined || cacheMissing) set(hash, value ?? null, readAt);
    return value;
  }

  return {
    get,
    set,
    /** Where invalidations stand now; pass it to `set` with what was read after taking it. */
    get epoch(): number {
      return epoch;
    },
    /**
     * Read-through: the cached value, else what `read` finds, cached unless an invalidation arrived during the read.
     * Nothing found (`undefined`) is cached as "no such key" only with `cacheMissing`.
     */
    async load(hash: string, read: () => Promise<V | undefined>, options: { cacheMissing: boolean }): Promise<V | undefined> {
      return lookup(hash, read, options);
    },
    lookup,
    /** Clears here at once and tells the other instances. */
    invalidate(message: Invalidation) {
      drop(message);
      options.bus.publish(message);
    },
    get size() {
      return entries.size;
    },
    /** Lookups answered from the cache ("no such key" included) and lookups that were not, since creation. */
    stats(): { hits: number; misses: number; size: number } {
      return { hits, misses, size: entries.size };
    },
  };
}

export type KeyCache<V = VerifiableKey> = ReturnType<typeof createKeyCache<V>>;
