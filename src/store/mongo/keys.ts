import type { ClientSession, Collection } from "mongodb";
import type { IdentityRecord, KeyRecord, KeyStore } from "../ports.js";
import type { AtomicWrites } from "./atomic.js";
import {
  byIdFilter,
  byIdInWorkspaceFilter,
  fromDocument,
  keyReplaceFilter,
  keyReplacement,
  keysByApiFilter,
  keysByApiPageQuery,
  keysByIdentityPageQuery,
  keysOfIdentityFilter,
  liveByHashFilter,
  toIdentityDocument,
  type PageQuery,
  type StoredDocument,
} from "./filters.js";
import { scoped, untypedCollection, write } from "./scoped.js";

/**
 * KeyStore over the `keys` collection; its indexes (indexes.ts) serve every query here. A replace that links a new
 * identity also writes `identities`, in one transaction where the deployment has them (see replaceCompensating).
 */
export function mongoKeyStore(
  docs: Collection<StoredDocument<KeyRecord>>, identities: Collection<StoredDocument<IdentityRecord>>, atomic: AtomicWrites,
): KeyStore {
  const untyped = untypedCollection(docs);
  const identityDocs = untypedCollection(identities);
  const base = scoped<KeyRecord>(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<KeyRecord>(doc as StoredDocument<KeyRecord>);

  async function page(query: PageQuery<object> | null): Promise<KeyRecord[]> {
    if (!query) return [];
    return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
  }

  /**
   * A standalone server has no transactions. The identity goes first: until a key links to it, it is a harmless
   * identity like any other, and a duplicate external id refuses the whole replace before the key is touched. When the
   * key's compare-and-swap then loses, the identity is deleted again unless a concurrent update found it by its
   * external id and linked a key to it meanwhile (then it is theirs too). Should that cleanup fail, its error is
   * thrown: the caller must not read "nothing changed" into it. A crash in between leaves an unlinked identity;
   * production deployments are replica sets.
   */
  async function replaceCompensating(record: KeyRecord, newIdentity: IdentityRecord): Promise<boolean> {
    await write(identities.collectionName, () => identityDocs.insertOne(toIdentityDocument(newIdentity)));
    const result = await write(docs.collectionName, () => untyped.replaceOne(keyReplaceFilter(record), keyReplacement(record)));
    if (result.matchedCount === 1) return true;
    if (!(await untyped.findOne(keysOfIdentityFilter(record.workspaceId, newIdentity.id)))) {
      await identityDocs.deleteOne(byIdFilter(newIdentity.id));
    }
    return false;
  }

  return {
    insert: base.insert,
    get: base.get,
    markDeleted: base.markDeleted,
    async findByHash(hash) {
      const doc = await untyped.findOne(liveByHashFilter(hash));
      return doc ? toRecord(doc) : undefined;
    },
    async replace(record, options = {}) {
      const { newIdentity } = options;
      const swap = async (session?: ClientSession) =>
        (await write(docs.collectionName, () => untyped.replaceOne(keyReplaceFilter(record), keyReplacement(record), { session }))).matchedCount === 1;
      if (!newIdentity) return swap();
      if (!atomic.transactional) return replaceCompensating(record, newIdentity);
      // The compare-and-swap first: a lost race (the common failure) returns before anything else is written.
      return atomic.run(async (session) => {
        if (!(await swap(session))) return false;
        await write(identities.collectionName, () => identityDocs.insertOne(toIdentityDocument(newIdentity), { session }));
        return true;
      });
    },
    async erase(workspaceId, id) {
      return (await untyped.deleteOne(byIdInWorkspaceFilter(workspaceId, id))).deletedCount === 1;
    },
    listByApi: (workspaceId, apiId, query) => page(keysByApiPageQuery(workspaceId, apiId, query)),
    countByApi: (workspaceId, apiId, filter) => untyped.countDocuments(keysByApiFilter(workspaceId, apiId, filter?.identityId)),
    listByIdentity: (workspaceId, identityId, query) => page(keysByIdentityPageQuery(workspaceId, identityId, query)),
  };
}
