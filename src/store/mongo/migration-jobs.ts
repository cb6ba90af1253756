import type { Collection } from "mongodb";
import type { MigrationJobRecord, MigrationJobStore } from "../ports/migrations.js";
import { byIdFilter, fromDocument, toDocument, type StoredDocument } from "./filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";

/** Jobs not done yet, oldest first; the `state_id` index serves it. */
export function unfinishedJobsQuery(): { filter: { state: { $ne: "done" } }; options: { sort: { _id: 1 } } } {
  return { filter: { state: { $ne: "done" } }, options: { sort: { _id: 1 } } };
}

/** MigrationJobStore over the `migration_jobs` collection. */
export function mongoMigrationJobStore(docs: Collection<StoredDocument<MigrationJobRecord>>): MigrationJobStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<MigrationJobRecord>(doc as StoredDocument<MigrationJobRecord>);
  return {
    async insert(job) {
      await write(docs.collectionName, () => untyped.insertOne(toDocument(job)));
    },
    async get(workspaceId, id) {
      const doc = await untyped.findOne(byIdFilter(id));
      const job = doc ? toRecord(doc) : undefined;
      return job && job.workspaceId === workspaceId ? job : undefined;
    },
    async unfinished() {
      const query = unfinishedJobsQuery();
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    async saveProgress(job) {
      await untyped.replaceOne(byIdFilter(job.id), withoutId(toDocument(job)));
    },
  };
}
