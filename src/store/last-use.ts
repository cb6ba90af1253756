import type { VerificationEvent } from "./ports/events.js";

/** A key's latest recorded verification: the workspace it belongs to (reads are scoped to it) and the time, unix ms. */
export interface LastUse {
  workspaceId: string;
  time: number;
}

/** What of an event the last use needs (a persisted entry read back has just these). */
export type UseOf = Pick<VerificationEvent, "keyId" | "workspaceId" | "time">;

/**
 * Folds written events into per-key latest verification times (the later time wins; an older event never moves it
 * back) and returns the ids whose entry changed, so an adapter persists only those. Event adapters call it on the
 * batches they have just written, which is how `lastUsed` costs the verification path nothing: the events are
 * recorded anyway, and this runs off the request path in the batch writer.
 */
export function mergeLastUse(into: Map<string, LastUse>, events: Iterable<UseOf>): string[] {
  const changed = new Set<string>();
  for (const event of events) {
    if (typeof event.keyId !== "string" || !Number.isSafeInteger(event.time)) continue;
    const current = into.get(event.keyId);
    if (current && current.time >= event.time) continue;
    // Updated in place: one entry per key for the life of the map, not a new one per flush that moves it.
    if (current) {
      current.workspaceId = event.workspaceId;
      current.time = event.time;
    } else into.set(event.keyId, { workspaceId: event.workspaceId, time: event.time });
    changed.add(event.keyId);
  }
  return [...changed];
}

/** The entries of `keyIds` that belong to `workspaceId` (a key id of another workspace reads as never used). */
export function lastUseOf(entries: Map<string, LastUse>, workspaceId: string, keyIds: readonly string[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const keyId of keyIds) {
    const entry = entries.get(keyId);
    if (entry && entry.workspaceId === workspaceId) found.set(keyId, entry.time);
  }
  return found;
}

/**
 * When an adapter writes its last-use entries. The batcher's `afterFlush` runs at the end of a drain, which for a
 * large backlog may take long; so between batches of one drain they are also written, at most once per
 * `intervalMs` (a failure there waits for `afterFlush`, which retries and reports it). This keeps the bound of
 * `lastUsed` at about the interval however busy the writer is.
 */
export function pacedLastUseWrites(persist: () => Promise<void>, intervalMs = 1000) {
  let last = performance.now();
  return {
    /** After a batch of events is written. */
    async betweenBatches(): Promise<void> {
      if (performance.now() - last < intervalMs) return;
      last = performance.now();
      await persist().catch(() => {});
    },
    /** At the end of every drain (the batcher's afterFlush): failures are thrown for the batcher to record. */
    async afterDrain(): Promise<void> {
      last = performance.now();
      await persist();
    },
  };
}
