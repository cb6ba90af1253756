import { newId } from "../../domain/ids.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports.js";
import { counterTag } from "../../domain/verification.js";
import { refillAt, withCounters, type KeysDeps } from "./key-context.js";
import { updateKeyWithRetry } from "./update-key-with-retry.js";

/** The workspace's identity with this external id, created on first reference. */
export async function identityFor(deps: KeysDeps, workspaceId: string, externalId: string): Promise<IdentityRecord> {
  const existing = await deps.documents.identities.findByExternalId(workspaceId, externalId);
  if (existing) return existing;
  const now = deps.clock.now();
  const record: IdentityRecord = { id: newId("id", now, deps.randomBytes), workspaceId, externalId, ratelimits: [], createdAt: now };
  try {
    await deps.documents.identities.insert(record);
    return record;
  } catch (error) {
    // Someone created it concurrently: theirs is the one.
    if (!(error instanceof UniqueViolationError)) throw error;
    const winner = await deps.documents.identities.findByExternalId(workspaceId, externalId);
    if (!winner) throw error;
    return winner;
  }
}

/**
 * Counters live under the key's identity (else the key) as hash tag, so a key that changes identity carries its
 * balance to the new tag. Rate-limit windows start afresh there.
 */
export async function moveCredits(deps: KeysDeps, key: KeyRecord, identityId: string | undefined): Promise<void> {
  if (!key.credits) return;
  const from = counterTag({ keyId: key.id, identityId: key.identityId });
  const to = counterTag({ keyId: key.id, identityId });
  if (from === to) return;
  const now = deps.clock.now();
  await withCounters(async () => {
    const balance = await deps.counters.readCredits(from, key.id, refillAt(key, now));
    await deps.counters.setCredits(to, key.id, balance ?? 0, now);
    await deps.counters.deleteCredits(from, key.id);
  });
}

/**
 * Unlinks every live key of an identity (before the identity is deleted): each key keeps verifying on its own
 * limits, its credits move to its own counter tag, and the cache forgets it.
 */
export async function detachKeys(deps: KeysDeps, identity: IdentityRecord): Promise<void> {
  const now = deps.clock.now();
  let after: string | undefined;
  for (;;) {
    const keys = await deps.documents.keys.listByIdentity(identity.workspaceId, identity.id, { limit: 100, after });
    if (keys.length === 0) return;
    after = keys[keys.length - 1].id;
    for (const key of keys) {
      // Credits move once, from the identity's tag; only the record write is retried. A key another request moved
      // to a different identity meanwhile is left as that request wrote it.
      await moveCredits(deps, key, undefined);
      await updateKeyWithRetry(deps, key.workspaceId, key.id, (current) => {
        if (current.identityId !== identity.id) return undefined;
        const { identityId: _identityId, ...detached } = current;
        return { ...detached, updatedAt: now };
      }, { read: key });
    }
  }
}
