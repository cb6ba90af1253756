import { counterTag } from "../../domain/verification.js";
import type { CounterStore } from "../../store/ports/counters.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { KeyRecord } from "../../store/ports/key-records.js";
import type { KeyCache } from "../key-cache.js";
import { withCounters } from "./key-context.js";

/** What deleting a key touches: its record, the verification cache, and its credit balance. */
export interface DeleteKeyDeps {
  documents: DocumentStore;
  counters: CounterStore;
  cache: Pick<KeyCache, "invalidate">;
}

/**
 * Deletes one loaded key the way keys.deleteKey does, for it and apis.deleteKeys alike: soft (markDeleted) or
 * `permanent` (erase), then drops it from the verification cache (on every instance) and deletes its balance, so
 * a deleted key leaves no counter behind. False, having done nothing else, when the key was already gone (a
 * concurrent delete won). The counter step fails closed (503) like every other one.
 */
export async function deleteKeyRecord(deps: DeleteKeyDeps, key: KeyRecord, options: { permanent: boolean; now: number }): Promise<boolean> {
  const done = options.permanent
    ? await deps.documents.keys.erase(key.workspaceId, key.id)
    : await deps.documents.keys.markDeleted(key.workspaceId, key.id, options.now);
  if (!done) return false;
  deps.cache.invalidate({ kind: "hash", hash: key.hash });
  if (key.credits) await withCounters(() => deps.counters.deleteCredits(counterTag({ keyId: key.id, identityId: key.identityId }), key.id));
  return true;
}
