import type { MigrateKeyData } from "../../../gen/keyward/v1/keys_pb.js";
import { KeywardError, notFound } from "../../domain/errors.js";
import { newId, type RandomBytes } from "../../domain/ids.js";
import { encryptKey, type EncryptedKey } from "../../domain/key-encryption.js";
import { counterTag } from "../../domain/verification.js";
import { UniqueViolationError } from "../../store/errors.js";
import type { ApiRecord } from "../../store/ports/apis.js";
import type { IdentityRecord, KeyRecord } from "../../store/ports/key-records.js";
import { authorize, type Principal } from "../context.js";
import { identityFor } from "./identities.js";
import { withCounters, type KeysDeps } from "./key-context.js";
import { dropUndefined } from "./key-input.js";
import { assignedRbac } from "./key-rbac-input.js";
import { keyTemplate, type CheckedSettings } from "./key-settings.js";
import { candidatesOf, sorted, type Candidate } from "./import-candidates.js";

/** Keys to import into an api: MigrateKeysRequest's fields, as the service, the job runner and the CLI give them. */
export interface ImportRequest {
  /** The hashes' encoding: one of HASH_VARIANTS (a key's own `hashVariant` wins). */
  migrationId: string;
  apiId: string;
  keys: readonly MigrateKeyData[];
  /** When any key would fail, import none and throw `conflict` (v1 createKeys). */
  allOrNothing?: boolean;
}

/** What an import did, key by key, in request order. */
export interface ImportResult {
  migrated: { hash: string; keyId: string; index: number }[];
  failures: { hash: string; error: string; index: number }[];
}

/** Random bytes in an id (newId). */
const ID_RANDOM_BYTES = 10;

/** Keys written per store write: one embedded commit or MongoDB insertMany each. */
const INSERT_CHUNK = 1000;

/**
 * Imports keys by the hash of their secret (or their plaintext, hashed on arrival) through createKey's own steps:
 * the same setting checks (key-settings.ts), roles and permissions assigned and created on demand as createKey does,
 * identities found or created by external id. Bad input anywhere refuses the whole request before anything is
 * written; a key whose hash is taken (by any key, even a deleted one) or repeats an earlier key of the request fails
 * alone. The rest go to the store in bulk (KeyStore.insertMany), so an import of many keys costs a few commits, not
 * one per key. `keyIds` pins each key's id (a queued job's, chosen when it was stored): a key found already stored
 * under its pinned id counts as imported, which is what makes a resumed job import each key exactly once.
 * `importKeys` is the in-process entry for bulk imports (the CLI can call it per batch with an operator principal).
 */
export function createKeyImporter(deps: KeysDeps) {
  const { documents, clock } = deps;

  async function apisOf(principal: Principal, request: ImportRequest): Promise<Map<string, ApiRecord>> {
    const apis = new Map<string, ApiRecord>();
    for (const apiId of new Set([request.apiId, ...request.keys.map((k) => k.apiId ?? request.apiId)])) {
      authorize(principal, { resourceType: "api", action: "create_key", resourceId: apiId });
      const api = await documents.apis.get(principal.workspaceId, apiId);
      if (!api) throw notFound(`The api ${apiId} does not exist.`);
      apis.set(apiId, api);
    }
    return apis;
  }

  /** The identities the importable keys link to, each found or created once. */
  async function identitiesOf(principal: Principal, importable: Candidate[]): Promise<Map<string, IdentityRecord>> {
    const identities = new Map<string, IdentityRecord>();
    for (const c of importable) {
      const externalId = c.checked.settings.externalId;
      if (externalId !== undefined && !identities.has(externalId)) {
        identities.set(externalId, await identityFor(deps, principal.workspaceId, externalId));
      }
    }
    return identities;
  }

  /** Every check an import makes before its first write (apis, permissions, input), without writing: what a queued job is held to. */
  async function checkImport(principal: Principal, request: ImportRequest): Promise<void> {
    candidatesOf(deps, request, await apisOf(principal, request), { now: clock.now() });
  }

  async function importKeys(
    principal: Principal,
    request: ImportRequest,
    options: { keyIds?: readonly string[]; encrypted?: readonly (EncryptedKey | null)[]; offset?: number } = {},
  ): Promise<ImportResult> {
    const apis = await apisOf(principal, request);
    const now = clock.now();
    const candidates = candidatesOf(deps, request, apis, { now, offset: options.offset });
    candidates.forEach((c, i) => {
      c.keyId = options.keyIds?.[i];
      c.encrypted = options.encrypted?.[i] ?? undefined;
    });
    const { importable, failures, resumed } = await sorted(documents, principal.workspaceId, candidates);
    if (request.allOrNothing && failures.length > 0) {
      const first = failures.sort((a, b) => a.index - b.index)[0];
      throw new KeywardError("conflict", `keys[${first.index}]: ${first.error}; no key was imported.`, {
        violations: failures.map((f) => ({ location: `keys[${f.index}]`, message: f.error })),
      });
    }
    // Roles and permissions of all keys resolved at once, as createKey resolves one key's (created when missing).
    const names = (pick: (s: CheckedSettings["settings"]) => string[]) => [...new Set(importable.flatMap((c) => pick(c.checked.settings)))];
    const [permissions, roles] = [names((s) => s.permissions), names((s) => s.roles)];
    await assignedRbac(deps, principal, { permissions: permissions.length ? permissions : undefined, roles: roles.length ? roles : undefined });
    const identities = await identitiesOf(principal, importable);
    // One call for every new id's randomness: a call per key was a tenth of a large import's time.
    const pool = deps.randomBytes(ID_RANDOM_BYTES * importable.length);
    const records = importable.map((c, i) => recordOf(c, { now, identities, random: () => pool.subarray(i * ID_RANDOM_BYTES, (i + 1) * ID_RANDOM_BYTES) }));
    for (const record of records) {
      const remaining = candidateOf(record).checked.credits.remaining;
      if (remaining !== undefined) {
        await withCounters(() => deps.counters.setCredits(counterTag({ keyId: record.id, identityId: record.identityId }), record.id, remaining, now));
      }
    }
    const inserted = await insertAll(records, failures, { allOrNothing: request.allOrNothing ?? false });
    const migrated = [...resumed, ...inserted.map((r) => ({ hash: candidateOf(r).given, keyId: r.id, index: candidateOf(r).index }))];
    return { migrated: migrated.sort((a, b) => a.index - b.index), failures: failures.sort((a, b) => a.index - b.index) };
  }

  function recordOf(c: Candidate, context: { now: number; identities: Map<string, IdentityRecord>; random: RandomBytes }): KeyRecord {
    const { settings } = c.checked;
    const template = keyTemplate(c.checked, {
      api: c.api, now: context.now,
      identity: settings.externalId === undefined ? undefined : context.identities.get(settings.externalId),
      rbac: { permissions: [...new Set(settings.permissions)], roles: [...new Set(settings.roles)] },
    });
    const id = c.keyId ?? newId("key", context.now, context.random);
    const record: KeyRecord = { ...template, id, hash: c.hash, start: c.start };
    if (c.encrypted) record.encrypted = c.encrypted;
    else if (c.plaintext !== undefined && c.api.storeEncryptedKeys && deps.encryptionKey) {
      record.encrypted = encryptKey(deps.encryptionKey, c.plaintext, id);
    }
    dropUndefined(record);
    positions.set(record, c);
    return record;
  }

  /**
   * Inserts in chunks. A chunk refused because a concurrent call took one of its hashes meanwhile is sorted again:
   * the taken keys fail, the rest are inserted (all or nothing: the call is refused).
   */
  async function insertAll(records: KeyRecord[], failures: ImportResult["failures"], options: { allOrNothing: boolean }): Promise<KeyRecord[]> {
    const inserted: KeyRecord[] = [];
    for (let at = 0; at < records.length; at += INSERT_CHUNK) {
      let chunk = records.slice(at, at + INSERT_CHUNK);
      try {
        await documents.keys.insertMany(chunk);
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
        // All or nothing (v1, at most 100 keys: one chunk, so nothing of the request was written).
        if (options.allOrNothing) throw new KeywardError("conflict", "A key of this request was imported concurrently; no key was imported.");
        const taken = await documents.keys.takenHashes(chunk.map((r) => r.hash));
        for (const r of chunk) {
          if (taken.has(r.hash)) failures.push({ hash: candidateOf(r).given, index: candidateOf(r).index, error: "a key with this hash already exists" });
        }
        chunk = chunk.filter((r) => !taken.has(r.hash));
        await documents.keys.insertMany(chunk);
      }
      for (const r of chunk) deps.cache.invalidate({ kind: "hash", hash: r.hash });
      inserted.push(...chunk);
    }
    return inserted;
  }

  return { importKeys, checkImport };
}

/** The candidate each record was made from, kept beside the record rather than in it. */
const positions = new WeakMap<KeyRecord, Candidate>();
const candidateOf = (record: KeyRecord): Candidate => positions.get(record) as Candidate;

export type KeyImporter = ReturnType<typeof createKeyImporter>;
