/** Pure pieces of the MongoDB last-use collection: one document per verified key, moved only forward. */
import type { AnyBulkWriteOperation, Filter } from "mongodb";
import type { LastUse } from "../last-use.js";

export const LAST_USE_COLLECTION = "key_last_used";

/** `_id` is the key id; the workspace scopes reads. */
export interface LastUseDocument {
  _id: string;
  workspaceId: string;
  lastUsedAt: number;
}

/**
 * One upsert per key with `$max`, so instances flushing concurrently (or a retried write arriving late) never move a
 * key's time backwards, and the order of writes does not matter.
 */
export function lastUseUpdates(entries: Iterable<[string, LastUse]>): AnyBulkWriteOperation<LastUseDocument>[] {
  return [...entries].map(([keyId, use]) => ({
    updateOne: {
      filter: { _id: keyId },
      update: { $max: { lastUsedAt: use.time }, $setOnInsert: { workspaceId: use.workspaceId } },
      upsert: true,
    },
  }));
}

/** The documents of `keyIds` in `workspaceId` (by `_id`, the primary index). */
export function lastUseFilter(workspaceId: string, keyIds: readonly string[]): Filter<LastUseDocument> {
  return { _id: { $in: [...keyIds] }, workspaceId };
}
