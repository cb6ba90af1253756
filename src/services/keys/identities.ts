import { newId } from "../../domain/ids.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports/key-records.js";
import { counterTag } from "../../domain/verification.js";
import { refillAt, withCounters, type KeysDeps } from "./key-context.js";

/**
 * The workspace's live identity with this external id, or (`isNew`) a new record for it that is not stored yet: an
 * update stores it in the same write as the key that links to it (KeyStore.replace's `newIdentity`), so a write that
 * loses its race leaves no identity behind.
 */
export async function identityToLink(
  deps: Pick<KeysDeps, "documents" | "clock" | "randomBytes">,
  workspaceId: string,
  externalId: string,
): Promise<{ record: IdentityRecord; isNew: boolean }> {
  const existing = await deps.documents.identities.findByExternalId(workspaceId, externalId);
  if (existing) return { record: existing, isNew: false };
  const now = deps.clock.now();
  return { record: { id: newId("id", now, deps.randomBytes), workspaceId, externalId, ratelimits: [], createdAt: now }, isNew: true };
}

/** The workspace's identity with this external id, created (stored on its own) on first reference. */
export async function identityFor(deps: KeysDeps, workspaceId: string, externalId: string): Promise<IdentityRecord> {
  const { record, isNew } = await identityToLink(deps, workspaceId, externalId);
  if (!isNew) return record;
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
 * Counters live under the key's identity (else the key) as hash tag, so a key that changed identity carries its
 * balance to the new tag. Rate-limit windows start afresh there. `key` is the record as it was before the change.
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
