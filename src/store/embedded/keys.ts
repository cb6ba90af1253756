import { keyMatchesSearch } from "../key-search.js";
import type { KeyRecord } from "../ports/key-records.js";
import type { KeyStore } from "../ports/keys.js";
import type { PageQuery } from "../ports/pages.js";
import type { CollectionSpec, Journal } from "./journal.js";
import { countIndexed, liveOf, markDeletedIn, revisionOf } from "./owned.js";

const KEYS = "keys";
/** identities.ts's collection: a replace may insert the identity its key now links to. */
const IDENTITIES = "identities";

/** Index value of the keys of one api; workspace ids never contain ":", so the pair is unambiguous. */
const byApi = (workspaceId: string, apiId: string) => `${workspaceId}:${apiId}`;
const byIdentity = (workspaceId: string, identityId: string) => `${workspaceId}:${identityId}`;

/**
 * The `keys` collection. The hash index covers deleted keys too, so a deleted key's hash is never reused (erase
 * frees it); keys without an identity stay out of the identity index.
 */
export const keysCollection: CollectionSpec = {
  unique: { hash: (d) => d.hash },
  indexes: {
    api: (d) => byApi(d.workspaceId, d.apiId),
    identity: (d) => (typeof d.identityId === "string" ? byIdentity(d.workspaceId, d.identityId) : undefined),
    // Live keys with an expiry, by the hour it falls in: the webhook expiry scan reads a few hours, not every key.
    expiresHour: (d) => (typeof d.expires === "number" && d.deletedAt == null ? String(expiryHour(d.expires)) : undefined),
  },
};

/** The hour (since the epoch) an expiry falls in: the bucket of the `expiresHour` index. */
export const expiryHour = (expires: number) => Math.floor(expires / 3_600_000);

const isLive = (key: Readonly<KeyRecord>) => key.deletedAt == null;

/** KeyStore over a journal holding `keysCollection` under the name "keys". */
export function keyStoreOver(journal: Journal): KeyStore {
  return {
    insert: (record) => journal.commit([{ op: "insert", collection: KEYS, doc: record }]),
    // One commit: its plan checks every id and hash (also against each other) before anything is applied.
    insertMany: (records) => journal.commit(records.map((doc) => ({ op: "insert" as const, collection: KEYS, doc }))),
    async takenHashes(hashes) {
      return new Set(hashes.filter((hash) => journal.findUnique<KeyRecord>(KEYS, "hash", hash) !== undefined));
    },
    async findByHash(hash) {
      const key = journal.findUnique<KeyRecord>(KEYS, "hash", hash);
      return key && isLive(key) ? key : undefined;
    },
    get: async (workspaceId, id) => liveOf<KeyRecord>(journal, KEYS, workspaceId, id),
    // The caller may change anything but the key's identity: id, workspace, api and hash must match the stored key,
    // and so must the revision it read. Check and commit run in one synchronous stretch (as in replaceLive), and a new
    // identity is inserted by the same commit, which the identities' unique index checks before anything is applied.
    async replace(record, options = {}) {
      const read = revisionOf(record);
      const stored = liveOf<KeyRecord>(journal, KEYS, record.workspaceId, record.id);
      if (!stored || stored.apiId !== record.apiId || stored.hash !== record.hash || revisionOf(stored) !== read) return false;
      const { newIdentity } = options;
      const next: KeyRecord = { ...record, revision: read + 1 };
      await journal.commit([
        ...(newIdentity ? [{ op: "insert" as const, collection: IDENTITIES, doc: newIdentity }] : []),
        { op: "put", collection: KEYS, doc: next },
      ]);
      return true;
    },
    markDeleted: async (workspaceId, id, at) => markDeletedIn(journal, KEYS, workspaceId, id, at),
    async erase(workspaceId, id) {
      const key = journal.get<KeyRecord>(KEYS, id);
      if (!key || key.workspaceId !== workspaceId) return false;
      await journal.commit([{ op: "delete", collection: KEYS, id }]);
      return true;
    },
    async listByApi(workspaceId, apiId, page) {
      const { identityId, search } = page;
      const state = page.deleted ? (k: Readonly<KeyRecord>) => !isLive(k) : isLive;
      const wanted = (k: Readonly<KeyRecord>) => state(k) && keyMatchesSearch(k, search);
      // With an identity, its index is the narrower scan; the api is then checked per key.
      const scan: { index: { name: string; value: string }; filter: (k: Readonly<KeyRecord>) => boolean } =
        identityId === undefined
          ? { index: { name: "api", value: byApi(workspaceId, apiId) }, filter: wanted }
          : { index: { name: "identity", value: byIdentity(workspaceId, identityId) }, filter: (k) => wanted(k) && k.apiId === apiId };
      return journal.scan<KeyRecord>(KEYS, { ...scan, after: page.after, limit: page.limit });
    },
    async countByApi(workspaceId, apiId, filter = {}) {
      const { identityId, search } = filter;
      const wanted = (k: Readonly<KeyRecord>) => isLive(k) && keyMatchesSearch(k, search);
      if (identityId === undefined) return countIndexed<KeyRecord>(journal, KEYS, { name: "api", value: byApi(workspaceId, apiId) }, wanted);
      return countIndexed<KeyRecord>(
        journal,
        KEYS,
        { name: "identity", value: byIdentity(workspaceId, identityId) },
        (k) => wanted(k) && k.apiId === apiId,
      );
    },
    listByIdentity: async (workspaceId, identityId, page: PageQuery) =>
      journal.scan<KeyRecord>(KEYS, {
        index: { name: "identity", value: byIdentity(workspaceId, identityId) },
        filter: isLive,
        after: page.after,
        limit: page.limit,
      }),
  };
}

/** Every live key linked to an identity, as copies: what deleting the identity unlinks in its own commit. */
export function liveKeysOfIdentity(journal: Journal, workspaceId: string, identityId: string): KeyRecord[] {
  return journal.scan<KeyRecord>(KEYS, { index: { name: "identity", value: byIdentity(workspaceId, identityId) }, filter: isLive });
}
