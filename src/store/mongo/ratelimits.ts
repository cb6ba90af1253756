import type { Collection } from "mongodb";
import { UniqueViolationError } from "../errors.js";
import type { RatelimitNamespaceRecord, RatelimitNamespaceStore, RatelimitOverrideRecord, RatelimitOverrideStore } from "../ports/ratelimits.js";
import { fromDocument, toDocument, type StoredDocument } from "./filters.js";
import {
  fromOverrideDocument,
  namespaceByIdFilter,
  namespaceByNameFilter,
  overrideByIdentifierFilter,
  overrideCandidatesFilter,
  overrideChangeUpdate,
  overridesOfNamespaceFilter,
  overridesPageQuery,
  toOverrideDocument,
  type StoredOverride,
} from "./ratelimit-filters.js";
import { namespacesPageQuery } from "./named-filters.js";
import { untypedCollection, write } from "./scoped.js";

/** RatelimitNamespaceStore over `ratelimit_namespaces`; the unique {workspaceId, name} index refuses a second one. */
export function mongoRatelimitNamespaceStore(docs: Collection<StoredDocument<RatelimitNamespaceRecord>>): RatelimitNamespaceStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string } | null) =>
    doc ? fromDocument<RatelimitNamespaceRecord>(doc as StoredDocument<RatelimitNamespaceRecord>) : undefined;
  return {
    async insert(record) {
      await write(docs.collectionName, () => untyped.insertOne(toDocument(record)));
    },
    get: async (workspaceId, id) => toRecord(await untyped.findOne(namespaceByIdFilter(workspaceId, id))),
    findByName: async (workspaceId, name) => toRecord(await untyped.findOne(namespaceByNameFilter(workspaceId, name))),
    async list(workspaceId, page) {
      const query = namespacesPageQuery(workspaceId, page);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map((doc) => toRecord(doc)!);
    },
  };
}

/** RatelimitOverrideStore over `ratelimit_overrides`; its indexes (indexes.ts) serve every query here. */
export function mongoRatelimitOverrideStore(docs: Collection<StoredOverride>): RatelimitOverrideStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromOverrideDocument(doc as StoredOverride);

  async function change(record: RatelimitOverrideRecord): Promise<RatelimitOverrideRecord | undefined> {
    const filter = overrideByIdentifierFilter(record.workspaceId, record.namespaceId, record.identifier);
    const doc = await untyped.findOneAndUpdate(filter, overrideChangeUpdate(record), { returnDocument: "after" });
    return doc ? toRecord(doc) : undefined;
  }

  return {
    async set(record) {
      const changed = await change(record);
      if (changed) return changed;
      try {
        await write(docs.collectionName, () => untyped.insertOne(toOverrideDocument(record)));
        return record;
      } catch (error) {
        // A concurrent set created it between our update and insert: change that one instead.
        if (!(error instanceof UniqueViolationError)) throw error;
        const again = await change(record);
        if (!again) throw error;
        return again;
      }
    },
    async get(workspaceId, namespaceId, identifier) {
      const doc = await untyped.findOne(overrideByIdentifierFilter(workspaceId, namespaceId, identifier));
      return doc ? toRecord(doc) : undefined;
    },
    async candidates(workspaceId, namespaceId, identifier) {
      return (await untyped.find(overrideCandidatesFilter(workspaceId, namespaceId, identifier)).toArray()).map(toRecord);
    },
    async delete(workspaceId, namespaceId, identifier) {
      const result = await untyped.deleteOne(overrideByIdentifierFilter(workspaceId, namespaceId, identifier));
      return result.deletedCount === 1;
    },
    async list(workspaceId, namespaceId, page) {
      const query = overridesPageQuery(workspaceId, namespaceId, page);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    count: (workspaceId, namespaceId) => untyped.countDocuments(overridesOfNamespaceFilter(workspaceId, namespaceId)),
  };
}
