import type { Clock } from "../../domain/clock.js";
import type { RatelimitNamespaceRecord, RatelimitOverrideRecord } from "../../store/ports/ratelimits.js";
import type { InvalidationBus } from "../../store/invalidation-bus.js";
import { createKeyCache } from "../key-cache.js";

/**
 * What a standalone limit call reads besides its counters, cached so that a call costs no document reads once warm
 * (on MongoDB, two queries per call otherwise): namespaces by workspace and id or name, and the override candidates
 * of each (namespace, identifier).
 *
 * Namespaces are never deleted or renamed, so only found ones are cached (a missing one may be created any time).
 * Override candidates are cached under the namespace's generation: setting or deleting an override bumps it here
 * and, over the bus, on every instance, which makes every entry of that namespace unreachable at once (a read that
 * raced the bump was filed under the old generation, so it is never served). The TTL bounds staleness should a
 * message be lost.
 */
export function createLimitConfigCache(options: { clock: Clock; bus: InvalidationBus; maxEntries?: number; ttlMs?: number }) {
  const namespaces = createKeyCache<RatelimitNamespaceRecord>(options);
  const candidates = createKeyCache<RatelimitOverrideRecord[]>(options);
  const generations = new Map<string, number>();
  const bump = (namespaceId: string) => generations.set(namespaceId, (generations.get(namespaceId) ?? 0) + 1);
  options.bus.subscribe((message) => {
    if (message.kind === "ratelimit-overrides") bump(message.namespaceId);
  });

  return {
    namespace(workspaceId: string, ref: string, read: () => Promise<RatelimitNamespaceRecord | undefined>) {
      return namespaces.load(JSON.stringify([workspaceId, ref]), read, { cacheMissing: false });
    },

    async overrideCandidates(namespaceId: string, identifier: string, read: () => Promise<RatelimitOverrideRecord[]>) {
      const key = JSON.stringify([namespaceId, generations.get(namespaceId) ?? 0, identifier]);
      return (await candidates.load(key, read, { cacheMissing: false }))!;
    },

    /** After an override of the namespace was set or deleted: here at once, on other instances over the bus. */
    overridesChanged(namespaceId: string): void {
      bump(namespaceId);
      options.bus.publish({ kind: "ratelimit-overrides", namespaceId });
    },
  };
}

export type LimitConfigCache = ReturnType<typeof createLimitConfigCache>;
