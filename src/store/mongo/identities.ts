import type { Collection } from "mongodb";
import type { IdentityStore } from "../ports/identities.js";
import type { IdentityRecord, KeyRecord } from "../ports/key-records.js";
import type { AtomicWrites } from "./atomic.js";
import {
  fromDocument,
  fromIdentityDocument,
  keysOfIdentityFilter,
  liveByExternalIdFilter,
  liveByIdFilter,
  liveInWorkspaceFilter,
  livePageQuery,
  markIdentityDeletedUpdate,
  toIdentityDocument,
  type StoredDocument,
  type StoredIdentity,
  unlinkIdentityUpdate,
} from "./filters.js";
import { identityReplaceFilter, identitySearchFilter, identitySearchPageQuery } from "./identity-filters.js";
import { atNextRevision } from "./revision-filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";

/**
 * IdentityStore over the `identities` collection. Documents carry the adapter's `live` marker (filters.ts) so the
 * unique external-id index covers live identities only; records returned never show it. A delete also unlinks the
 * identity's keys, in one transaction where the deployment has them.
 */
export function mongoIdentityStore(
  docs: Collection<StoredDocument<IdentityRecord>>, keys: Collection<StoredDocument<KeyRecord>>, atomic: AtomicWrites,
): IdentityStore {
  const untyped = untypedCollection(docs);
  const keyDocs = untypedCollection(keys);
  const toRecord = (doc: { _id: string }) => fromIdentityDocument<IdentityRecord>(doc as StoredIdentity<IdentityRecord>);

  return {
    async insert(record) {
      await write(docs.collectionName, () => untyped.insertOne(toIdentityDocument(record)));
    },
    async get(workspaceId, id) {
      const doc = await untyped.findOne(liveByIdFilter(workspaceId, id));
      return doc ? toRecord(doc) : undefined;
    },
    async findByExternalId(workspaceId, externalId) {
      const doc = await untyped.findOne(liveByExternalIdFilter(workspaceId, externalId));
      return doc ? toRecord(doc) : undefined;
    },
    async replace(record) {
      const replacement = withoutId(toIdentityDocument(atNextRevision(record)));
      const filter = identityReplaceFilter(record);
      const result = await write(docs.collectionName, () => untyped.replaceOne(filter, replacement));
      return result.matchedCount === 1;
    },
    /**
     * The conditional soft delete decides: of concurrent deletes only one matches, and only it unlinks keys, one at a
     * time, each returned as it was before. Standalone: a failure after the delete leaves keys linked to a deleted
     * identity, which reads take as no identity (their credits stay under the tag the link names).
     */
    markDeleted(workspaceId, id, at) {
      return atomic.run(async (session) => {
        const deleted = await untyped.updateOne(liveByIdFilter(workspaceId, id), markIdentityDeletedUpdate(at), { session });
        if (deleted.matchedCount !== 1) return false;
        const unlinked: KeyRecord[] = [];
        for (;;) {
          const before = await keyDocs.findOneAndUpdate(keysOfIdentityFilter(workspaceId, id), unlinkIdentityUpdate(at), {
            session, returnDocument: "before",
          });
          if (!before) return unlinked;
          unlinked.push(fromDocument<KeyRecord>(before as StoredDocument<KeyRecord>));
        }
      });
    },
    async list(workspaceId, page) {
      const query = livePageQuery(workspaceId, page);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    count: (workspaceId) => untyped.countDocuments(liveInWorkspaceFilter(workspaceId)),
    async search(workspaceId, text, page) {
      const query = identitySearchPageQuery(workspaceId, text, page);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    countMatching: (workspaceId, text) => untyped.countDocuments(identitySearchFilter(workspaceId, text)),
  };
}
