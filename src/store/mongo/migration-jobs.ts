import type { Collection } from "mongodb";
import type { JobLease, MigrationJobRecord, MigrationJobStore } from "../ports/migrations.js";
import { byIdFilter, fromDocument, toDocument, type StoredDocument } from "./filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";

/** Jobs not done yet, oldest first, as ids and leases (not their keys); the `state_id` index serves it. */
export function unfinishedJobsQuery(): { filter: { state: { $ne: "done" } }; options: { sort: { _id: 1 }; projection: { _id: 1; lease: 1 } } } {
  return { filter: { state: { $ne: "done" } }, options: { sort: { _id: 1 }, projection: { _id: 1, lease: 1 } } };
}

/**
 * Job `id` while it is not done and free for `lease.owner` (leaseFreeFor, as a query): never leased, its lease run
 * out by `now`, or its own.
 */
export function claimableJobFilter(id: string, lease: JobLease, now: number) {
  return {
    _id: id,
    state: { $ne: "done" },
    $or: [{ lease: { $exists: false } }, { "lease.until": { $lte: now } }, { "lease.owner": lease.owner }],
  };
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
      return (await untyped.find(query.filter, query.options).toArray()).map((doc) => {
        const { id, lease } = toRecord(doc);
        return { id, ...(lease && { lease }) };
      });
    },
    async claim(id, lease, now) {
      const doc = await untyped.findOneAndUpdate(claimableJobFilter(id, lease, now), { $set: { lease } }, { returnDocument: "after" });
      return doc ? toRecord(doc) : undefined;
    },
    async saveProgress(job) {
      const result = await untyped.replaceOne({ ...byIdFilter(job.id), "lease.owner": job.lease.owner }, withoutId(toDocument(job)));
      return result.matchedCount === 1;
    },
  };
}
