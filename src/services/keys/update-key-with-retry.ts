import { aborted } from "../../domain/errors.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports/key-records.js";
import type { KeysDeps } from "./key-context.js";

/**
 * Attempts before a read-modify-write gives up. An attempt fails only because another writer succeeded in between,
 * so N concurrent writers of one key all finish within N attempts; beyond this the key is too hot to wait for.
 */
const MAX_ATTEMPTS = 32;

/** The record a successful update was computed from, and the one it wrote. */
export interface KeyUpdate {
  before: KeyRecord;
  after: KeyRecord;
}

/**
 * Read-modify-write of one live key under optimistic concurrency. `change` computes the next record from the current
 * one and must be pure: when `replace` finds that someone wrote the key after it was read, the key is read again and
 * `change` runs again on the fresh record. Side effects (counters, creating references) belong before or after the
 * call, never inside `change`. `change` may throw (e.g. a conflict it cannot rebase) or return undefined when there is
 * nothing to write. `options.read` is a record the caller has just read, saving the first read. `options.newIdentity`
 * is an identity the changed key links to that is not stored yet: the winning write stores it, a losing one does not.
 *
 * Resolves to the update (with the cache told to forget the key), or undefined when the key is gone: unknown,
 * deleted, or of another workspace. Throws `aborted` when it keeps losing the race; UniqueViolationError, having
 * written nothing, when `newIdentity`'s external id was taken meanwhile.
 */
export async function updateKeyWithRetry(
  deps: Pick<KeysDeps, "documents" | "cache">,
  workspaceId: string,
  keyId: string,
  change: (current: KeyRecord) => KeyRecord | undefined,
  options: { read?: KeyRecord; newIdentity?: IdentityRecord } = {},
): Promise<KeyUpdate | undefined> {
  const { newIdentity } = options;
  let current = options.read ?? (await deps.documents.keys.get(workspaceId, keyId));
  for (let attempt = 1; current; attempt++) {
    const next = change(current);
    if (!next) return { before: current, after: current };
    // The revision is the one read, whatever `change` returned: it is what the store compares.
    const written: KeyRecord = { ...next, revision: current.revision };
    if (await (newIdentity ? deps.documents.keys.replace(written, { newIdentity }) : deps.documents.keys.replace(written))) {
      deps.cache.invalidate({ kind: "hash", hash: current.hash });
      return { before: current, after: { ...written, revision: (current.revision ?? 0) + 1 } };
    }
    if (attempt >= MAX_ATTEMPTS) throw aborted(`The key ${keyId} is being changed concurrently; retry the request.`);
    current = await deps.documents.keys.get(workspaceId, keyId);
  }
  return undefined;
}

/**
 * Carries the changes `next` made to `read` over to `current`, a newer revision of the same key: fields the update
 * left as they were keep `current`'s values, so a concurrent write to other fields survives.
 */
export function rebaseKey(current: KeyRecord, read: KeyRecord, next: KeyRecord): KeyRecord {
  if (current === read) return next;
  const result: Record<string, unknown> = { ...current };
  const before = read as unknown as Record<string, unknown>;
  const after = next as unknown as Record<string, unknown>;
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (field === "revision" || before[field] === after[field]) continue;
    if (after[field] === undefined) delete result[field];
    else result[field] = after[field];
  }
  return result as unknown as KeyRecord;
}
