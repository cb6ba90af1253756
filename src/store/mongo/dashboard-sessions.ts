import type { Collection } from "mongodb";
import type { DashboardSessionRecord, DashboardSessionStore } from "../ports/dashboard-sessions.js";
import { byHashFilter, fromDocument, toDocument, type StoredDocument } from "./filters.js";
import { untypedCollection, write } from "./scoped.js";

/** `{ expiresAt: { $lte: now } }`: the sessions an expiry sweep removes. */
export function expiredSessionsFilter(now: number): { expiresAt: { $lte: number } } {
  return { expiresAt: { $lte: now } };
}

/** Dashboard sessions in MongoDB: found by token hash (unique index), deleted for good on sign-out or expiry. */
export function mongoDashboardSessionStore(docs: Collection<StoredDocument<DashboardSessionRecord>>): DashboardSessionStore {
  const untyped = untypedCollection(docs);
  return {
    async insert(record) {
      await write(docs.collectionName, () => untyped.insertOne(toDocument(record)));
    },
    async findByHash(hash) {
      const doc = await untyped.findOne(byHashFilter(hash));
      return doc ? fromDocument<DashboardSessionRecord>(doc as StoredDocument<DashboardSessionRecord>) : undefined;
    },
    async delete(hash) {
      return (await untyped.deleteOne(byHashFilter(hash))).deletedCount === 1;
    },
    async deleteExpired(now) {
      return (await untyped.deleteMany(expiredSessionsFilter(now))).deletedCount;
    },
  };
}
