import type { Collection } from "mongodb";
import type { KeyRecord, KeyStore } from "../ports.js";
import {
  byIdInWorkspaceFilter,
  fromDocument,
  keyReplaceFilter,
  keyReplacement,
  keysByApiFilter,
  keysByApiPageQuery,
  keysByIdentityPageQuery,
  liveByHashFilter,
  type PageQuery,
  type StoredDocument,
} from "./filters.js";
import { scoped, untypedCollection, write } from "./scoped.js";

/** KeyStore over the `keys` collection; its indexes (indexes.ts) serve every query here. */
export function mongoKeyStore(docs: Collection<StoredDocument<KeyRecord>>): KeyStore {
  const untyped = untypedCollection(docs);
  const base = scoped<KeyRecord>(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<KeyRecord>(doc as StoredDocument<KeyRecord>);

  async function page(query: PageQuery<object> | null): Promise<KeyRecord[]> {
    if (!query) return [];
    return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
  }

  return {
    insert: base.insert,
    get: base.get,
    markDeleted: base.markDeleted,
    async findByHash(hash) {
      const doc = await untyped.findOne(liveByHashFilter(hash));
      return doc ? toRecord(doc) : undefined;
    },
    async replace(record) {
      const replacement = keyReplacement(record);
      const result = await write(docs.collectionName, () => untyped.replaceOne(keyReplaceFilter(record), replacement));
      return result.matchedCount === 1;
    },
    async erase(workspaceId, id) {
      return (await untyped.deleteOne(byIdInWorkspaceFilter(workspaceId, id))).deletedCount === 1;
    },
    listByApi: (workspaceId, apiId, query) => page(keysByApiPageQuery(workspaceId, apiId, query)),
    countByApi: (workspaceId, apiId, filter) => untyped.countDocuments(keysByApiFilter(workspaceId, apiId, filter?.identityId)),
    listByIdentity: (workspaceId, identityId, query) => page(keysByIdentityPageQuery(workspaceId, identityId, query)),
  };
}
