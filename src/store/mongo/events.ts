import { MongoServerError, type Db } from "mongodb";
import { createEventBatcher, type EventBatchingOptions, type EventStoreStats } from "../event-batcher.js";
import type { VerificationEventStore } from "../ports/events.js";
import { analyticsIndexes, analyticsPipeline, analyticsRow } from "./analytics-pipeline.js";
import {
  EVENTS_COLLECTION, bucketRow, eventAggregatePipeline, eventDocument, eventIndexes, eventsCollectionOptions,
  expireAfterSecondsFor, type EventDocument,
} from "./events-filters.js";
import { translateOutage } from "./outage.js";
import { mergeLastUse, pacedLastUseWrites, type LastUse } from "../last-use.js";
import { LAST_USE_COLLECTION, lastUseFilter, lastUseUpdates, type LastUseDocument } from "./last-use-filters.js";

export interface MongoEventStore extends VerificationEventStore {
  stats(): EventStoreStats;
}

const NAMESPACE_EXISTS = 48;

/**
 * The collections of one event stream: verification events by default; rate-limit events use their own. Without
 * `lastUse` the stream keeps no last-use times: rate-limit identifiers are any strings a caller sends (an address, a
 * user id), and a document per identifier would grow without bound.
 */
export interface EventCollections {
  events: string;
  lastUse?: string;
}

/**
 * How many documents of a failed unordered insert the server refused one by one (they are dropped; the others were
 * stored). 0 when the insert failed as a whole: driver 7 wraps a connection failure or timeout in
 * MongoBulkWriteError with empty `writeErrors`, and a write concern failure carries none either; then nothing is
 * known to be stored and the whole batch must be retried (an event may be stored twice, never lost).
 */
export function refusedDocuments(error: unknown): number {
  if (typeof error !== "object" || error === null || (error as { name?: unknown }).name !== "MongoBulkWriteError") return 0;
  const { writeErrors, writeConcernError } = error as { writeErrors?: unknown; writeConcernError?: unknown };
  if (writeConcernError !== undefined && writeConcernError !== null) return 0;
  if (Array.isArray(writeErrors)) return writeErrors.length;
  return typeof writeErrors === "object" && writeErrors !== null ? 1 : 0;
}

/**
 * Makes sure `verification_events` is a time-series collection with the wanted TTL and its index. Creating it
 * races harmlessly with another instance (NamespaceExists is success); a TTL changed in configuration is applied
 * with collMod; a plain collection of that name is refused rather than silently used without expiry.
 */
async function ensureEventsCollection(db: Db, name: string, maxAgeMs: number | undefined): Promise<void> {
  const wanted = eventsCollectionOptions(maxAgeMs);
  const [existing] = await db.listCollections({ name }).toArray();
  if (!existing) {
    await db.createCollection(name, wanted).catch((error: unknown) => {
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
    });
  } else if (existing.type !== "timeseries") {
    throw new Error(`collection ${db.databaseName}.${name} exists but is not a time-series collection`);
  } else if ((existing as { options?: { expireAfterSeconds?: unknown } }).options?.expireAfterSeconds !== wanted.expireAfterSeconds) {
    await db.command({ collMod: name, expireAfterSeconds: wanted.expireAfterSeconds });
  }
  await db.collection(name).createIndexes([...eventIndexes(), ...analyticsIndexes()]);
}

/**
 * Opens the MongoDB verification-event store on `db` (the caller owns and closes the client): batches
 * (event-batcher.ts) go to a time-series collection with insertMany({ordered: false}); MongoDB expires them after
 * `retention.maxAgeMs` (default 30 days; a count bound has no server-side equivalent and is not offered).
 * A batch that fails as a whole is retried, so after a transient failure an event may be stored twice; documents
 * the server refuses one by one are dropped and counted. Each key's last verification time goes to `key_last_used`
 * at the end of the same flush (one bulk of $max upserts), so every instance on the database reads it.
 * `collections` names another pair of collections for another stream of events (standalone rate-limit checks).
 */
export async function createMongoEventStore(
  options: { db: Db; retention?: { maxAgeMs?: number }; collections?: EventCollections } & EventBatchingOptions,
): Promise<MongoEventStore> {
  const names = options.collections ?? { events: EVENTS_COLLECTION, lastUse: LAST_USE_COLLECTION };
  expireAfterSecondsFor(options.retention?.maxAgeMs); // refuse a bad retention before touching the server
  await ensureEventsCollection(options.db, names.events, options.retention?.maxAgeMs);
  const collection = options.db.collection<EventDocument>(names.events);
  const lastUse = names.lastUse === undefined ? undefined : options.db.collection<LastUseDocument>(names.lastUse);
  // Latest times of the events written since the last successful last-use write (only those: memory stays small).
  let pending = new Map<string, LastUse>();

  /** After each drain: one unordered bulk of $max upserts; a failure keeps the entries for the next tick. */
  async function persistLastUse(): Promise<void> {
    if (pending.size === 0 || !lastUse) return;
    const writing = pending;
    pending = new Map();
    try {
      await lastUse.bulkWrite(lastUseUpdates(writing), { ordered: false });
    } catch (error) {
      mergeLastUse(pending, [...writing].map(([keyId, use]) => ({ keyId, ...use })));
      throw error;
    }
  }

  const lastUseWrites = pacedLastUseWrites(persistLastUse);

  const batcher = createEventBatcher({
    ...options,
    async write(batch) {
      try {
        await collection.insertMany(batch.map(eventDocument), { ordered: false });
      } catch (error) {
        const refused = refusedDocuments(error);
        // Nothing refused one by one: the batch failed as a whole (outage, timeout) and is retried.
        if (refused === 0) throw error;
        if (lastUse) mergeLastUse(pending, batch); // the rest were stored
        return { dropped: refused, error };
      }
      if (lastUse) mergeLastUse(pending, batch);
      await lastUseWrites.betweenBatches();
    },
    afterFlush: lastUseWrites.afterDrain,
  });

  return {
    record: batcher.record,
    flush: batcher.flush,
    close: batcher.close,
    stats: batcher.stats,
    async aggregate(query) {
      try {
        const rows = await collection.aggregate(eventAggregatePipeline(query)).toArray();
        return rows.map(bucketRow);
      } catch (error) {
        throw translateOutage(error);
      }
    },
    async lastUsed(workspaceId, keyIds) {
      if (keyIds.length === 0 || !lastUse) return new Map();
      try {
        const docs = await lastUse.find(lastUseFilter(workspaceId, keyIds)).toArray();
        return new Map(docs.map((doc) => [doc._id, doc.lastUsedAt]));
      } catch (error) {
        throw translateOutage(error);
      }
    },
    async query(query) {
      const rows = await collection.aggregate(analyticsPipeline(query)).toArray();
      return rows.map((row) => analyticsRow(row, query.groupBy));
    },
  };
}
