import type { Collection } from "mongodb";
import type { IdentityRecord, IdentityStore } from "../ports.js";
import {
  fromIdentityDocument,
  liveByExternalIdFilter,
  liveByIdFilter,
  liveInWorkspaceFilter,
  livePageQuery,
  markIdentityDeletedUpdate,
  toIdentityDocument,
  type StoredDocument,
  type StoredIdentity,
} from "./filters.js";
import { identityReplaceFilter, identitySearchFilter, identitySearchPageQuery } from "./identity-filters.js";
import { atNextRevision } from "./revision-filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";

/**
 * IdentityStore over the `identities` collection. Documents carry the adapter's `live` marker (filters.ts) so the
 * unique external-id index covers live identities only; records returned never show it.
 */
export function mongoIdentityStore(docs: Collection<StoredDocument<IdentityRecord>>): IdentityStore {
  const untyped = untypedCollection(docs);
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
    async markDeleted(workspaceId, id, at) {
      const result = await untyped.updateOne(liveByIdFilter(workspaceId, id), markIdentityDeletedUpdate(at));
      return result.matchedCount === 1;
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
