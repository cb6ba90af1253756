import type { IdentityStore } from "../ports/identities.js";
import type { IdentityRecord, KeyRecord } from "../ports/key-records.js";
import type { CollectionSpec, Journal, Mutation } from "./journal.js";
import { liveKeysOfIdentity } from "./keys.js";
import { countIndexed, liveOf, replaceLive, revisionOf } from "./owned.js";

const IDENTITIES = "identities";
const KEYS = "keys";

/** Named after the fields it covers, as the MongoDB adapter reports its compound index in UniqueViolationError. */
const EXTERNAL_ID = "workspaceId,externalId";

/** Workspace ids never contain ":", so the pair is unambiguous whatever the external id holds. */
const externalKey = (workspaceId: string, externalId: string) => `${workspaceId}:${externalId}`;

/**
 * The `identities` collection. An external id is unique among the LIVE identities of a workspace: a deleted
 * identity leaves the unique index, so its external id can be used again.
 */
export const identitiesCollection: CollectionSpec = {
  unique: { [EXTERNAL_ID]: (d) => (d.deletedAt == null ? externalKey(d.workspaceId, d.externalId) : undefined) },
  indexes: { workspace: (d) => d.workspaceId },
};

const isLive = (identity: Readonly<IdentityRecord>) => identity.deletedAt == null;

/** Live, with `text` in the id or external id, ignoring case (as the MongoDB adapter's case-insensitive regex). */
function matching(text: string) {
  const needle = text.toLowerCase();
  return (identity: Readonly<IdentityRecord>) =>
    isLive(identity) && (identity.id.toLowerCase().includes(needle) || identity.externalId.toLowerCase().includes(needle));
}

/** IdentityStore over a journal holding `identitiesCollection` under the name "identities". */
export function identityStoreOver(journal: Journal): IdentityStore {
  return {
    insert: (record) => journal.commit([{ op: "insert", collection: IDENTITIES, doc: record }]),
    get: async (workspaceId, id) => liveOf<IdentityRecord>(journal, IDENTITIES, workspaceId, id),
    findByExternalId: async (workspaceId, externalId) =>
      journal.findUnique<IdentityRecord>(IDENTITIES, EXTERNAL_ID, externalKey(workspaceId, externalId)),
    // A changed external id is checked by the unique index (UniqueViolationError when another live identity has it);
    // the revision the caller read must still be the stored one.
    async replace(record) {
      const read = revisionOf(record);
      return replaceLive(journal, IDENTITIES, { ...record, revision: read + 1 }, (stored) => revisionOf(stored) === read);
    },
    // Read, plan and commit in one synchronous stretch: of concurrent deletes one commits, the others find no live
    // identity; the unlinked keys move to their next revision, as a replace of theirs would.
    async markDeleted(workspaceId, id, at) {
      const identity = liveOf<IdentityRecord>(journal, IDENTITIES, workspaceId, id);
      if (!identity) return false;
      const linked = liveKeysOfIdentity(journal, workspaceId, id);
      const unlink = linked.map(({ identityId: _identityId, ...key }): Mutation => {
        const doc: KeyRecord = { ...key, updatedAt: at, revision: revisionOf(key) + 1 };
        return { op: "put", collection: KEYS, doc };
      });
      const deleted: IdentityRecord = { ...identity, deletedAt: at };
      await journal.commit([{ op: "put", collection: IDENTITIES, doc: deleted }, ...unlink]);
      return linked;
    },
    list: async (workspaceId, page) =>
      journal.scan<IdentityRecord>(IDENTITIES, {
        index: { name: "workspace", value: workspaceId },
        filter: isLive,
        after: page.after,
        limit: page.limit,
      }),
    count: async (workspaceId) => countIndexed<IdentityRecord>(journal, IDENTITIES, { name: "workspace", value: workspaceId }, isLive),
    search: async (workspaceId, text, page) =>
      journal.scan<IdentityRecord>(IDENTITIES, {
        index: { name: "workspace", value: workspaceId },
        filter: matching(text),
        after: page.after,
        limit: page.limit,
      }),
    countMatching: async (workspaceId, text) =>
      countIndexed<IdentityRecord>(journal, IDENTITIES, { name: "workspace", value: workspaceId }, matching(text)),
  };
}
