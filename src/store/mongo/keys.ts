import type { ClientSession, Collection } from "mongodb";
import type { IdentityRecord, KeyRecord } from "../ports/key-records.js";
import type { KeyStore } from "../ports/keys.js";
import type { AtomicWrites } from "./atomic.js";
import {
  byIdFilter,
  byIdInWorkspaceFilter,
  byIdsFilter,
  fromDocument,
  keyReplaceFilter,
  keyReplacement,
  keysByApiFilter,
  keysByApiPageQuery,
  keysByIdentityPageQuery,
  keysOfIdentityFilter,
  liveByHashFilter,
  takenHashesQuery,
  toDocument,
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

  /**
   * All or none: one transaction where the deployment has them; on a standalone server one ordered insertMany whose
   * partial success (it stops at the first taken id or hash) is deleted again before the error is thrown.
   */
  async function insertMany(records: readonly KeyRecord[]): Promise<void> {
    if (records.length === 0) return;
    const documents = records.map((record) => toDocument(record));
    if (atomic.transactional) {
      await atomic.runOnce((session) => write(docs.collectionName, () => untyped.insertMany(documents, { session })));
      return;
    }
    try {
      await untyped.insertMany(documents);
    } catch (error) {
      // Ordered: exactly the documents before the first refused one went in (all of them when the index is unknown).
      const inserted = records.slice(0, firstRefusedIndex(error) ?? records.length);
      if (inserted.length > 0) await untyped.deleteMany(byIdsFilter(inserted.map((r) => r.id)));
      await write(docs.collectionName, () => Promise.reject(error));
    }
  }

  return {
    insert: base.insert,
    insertMany,
    async takenHashes(hashes) {
      if (hashes.length === 0) return new Set();
      const query = takenHashesQuery(hashes);
      const found = await untyped.find(query.filter, query.options).toArray();
      return new Set(found.map((doc) => (doc as unknown as { hash: string }).hash));
    },
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
    countByApi: (workspaceId, apiId, filter) => untyped.countDocuments(keysByApiFilter(workspaceId, apiId, filter?.identityId, filter?.search)),
    listByIdentity: (workspaceId, identityId, query) => page(keysByIdentityPageQuery(workspaceId, identityId, query)),
  };
}

/** The position of the first document an ordered insertMany refused, from the driver's bulk write error. */
function firstRefusedIndex(error: unknown): number | undefined {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  const first = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
  const index = (first as { index?: unknown } | undefined)?.index;
  return typeof index === "number" ? index : undefined;
}
