import type { KeyRecord, KeyStore, PageQuery } from "../ports.js";
import type { CollectionSpec, Journal } from "./journal.js";
import { countIndexed, liveOf, markDeletedIn, replaceLive, revisionOf } from "./owned.js";

const KEYS = "keys";

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
  },
};

const isLive = (key: Readonly<KeyRecord>) => key.deletedAt == null;

/** KeyStore over a journal holding `keysCollection` under the name "keys". */
export function keyStoreOver(journal: Journal): KeyStore {
  return {
    insert: (record) => journal.commit([{ op: "insert", collection: KEYS, doc: record }]),
    async findByHash(hash) {
      const key = journal.findUnique<KeyRecord>(KEYS, "hash", hash);
      return key && isLive(key) ? key : undefined;
    },
    get: async (workspaceId, id) => liveOf<KeyRecord>(journal, KEYS, workspaceId, id),
    // The caller may change anything but the key's identity: id, workspace, api and hash must match the stored key,
    // and so must the revision it read (the check and the commit run in one synchronous stretch, see replaceLive).
    async replace(record) {
      const read = revisionOf(record);
      const next: KeyRecord = { ...record, revision: read + 1 };
      return replaceLive(journal, KEYS, next, (s) => s.apiId === record.apiId && s.hash === record.hash && revisionOf(s) === read);
    },
    markDeleted: async (workspaceId, id, at) => markDeletedIn(journal, KEYS, workspaceId, id, at),
    async erase(workspaceId, id) {
      const key = journal.get<KeyRecord>(KEYS, id);
      if (!key || key.workspaceId !== workspaceId) return false;
      await journal.commit([{ op: "delete", collection: KEYS, id }]);
      return true;
    },
    async listByApi(workspaceId, apiId, page) {
      const { identityId } = page;
      // With an identity, its index is the narrower scan; the api is then checked per key.
      const scan: { index: { name: string; value: string }; filter: (k: Readonly<KeyRecord>) => boolean } =
        identityId === undefined
          ? { index: { name: "api", value: byApi(workspaceId, apiId) }, filter: isLive }
          : { index: { name: "identity", value: byIdentity(workspaceId, identityId) }, filter: (k) => isLive(k) && k.apiId === apiId };
      return journal.scan<KeyRecord>(KEYS, { ...scan, after: page.after, limit: page.limit });
    },
    async countByApi(workspaceId, apiId, filter = {}) {
      const { identityId } = filter;
      if (identityId === undefined) return countIndexed<KeyRecord>(journal, KEYS, { name: "api", value: byApi(workspaceId, apiId) }, isLive);
      return countIndexed<KeyRecord>(
        journal,
        KEYS,
        { name: "identity", value: byIdentity(workspaceId, identityId) },
        (k) => isLive(k) && k.apiId === apiId,
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
