import type { Collection } from "mongodb";
import type { KeyExpiryScan, WebhookMessageRecord, WebhookMessageStore, WebhookRecord, WebhookStore } from "../ports/webhooks.js";
import { HISTORY } from "../embedded/webhooks.js";
import { isDuplicateKeyError } from "./errors.js";
import { fromDocument, pageQuery, toDocument, type StoredDocument } from "./filters.js";
import { untypedCollection, withoutId, write } from "./scoped.js";
import { deliveriesFilter, dueFilter, leaseUpdate, retryUpdate, settleUpdate } from "./webhook-filters.js";

/** WebhookStore over the `webhooks` collection (hard deletes: an endpoint has nothing that refers back to it). */
export function mongoWebhookStore(docs: Collection<StoredDocument<WebhookRecord>>): WebhookStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<WebhookRecord>(doc as StoredDocument<WebhookRecord>);
  return {
    async insert(record) {
      await write(docs.collectionName, () => untyped.insertOne(toDocument(record)));
    },
    async get(workspaceId, id) {
      const doc = await untyped.findOne({ _id: id, workspaceId });
      return doc ? toRecord(doc) : undefined;
    },
    async list(workspaceId, page) {
      const filter = { workspaceId, ...(page.after !== undefined && { _id: { $gt: page.after } }) };
      return (await untyped.find(filter, { sort: { _id: 1 }, limit: page.limit }).toArray()).map(toRecord);
    },
    async all(page) {
      const query = pageQuery(page);
      if (!query) return [];
      return (await untyped.find(query.filter, query.options).toArray()).map(toRecord);
    },
    async replace(record) {
      const result = await untyped.replaceOne({ _id: record.id, workspaceId: record.workspaceId }, withoutId(toDocument(record)));
      return result.matchedCount === 1;
    },
    async delete(workspaceId, id) {
      return (await untyped.deleteOne({ _id: id, workspaceId })).deletedCount === 1;
    },
  };
}

/**
 * The outbox on MongoDB, shared by every instance: a message is taken with one findOneAndUpdate that sets its lease,
 * so while the lease runs no other instance takes it; deterministic ids are unique `_id`s, so a second insert of
 * the same event is refused by the server and skipped here.
 */
export function mongoWebhookMessageStore(
  docs: Collection<StoredDocument<WebhookMessageRecord>>, state: Collection<{ _id: string; value: string }>,
): WebhookMessageStore {
  const untyped = untypedCollection(docs);
  const toRecord = (doc: { _id: string }) => fromDocument<WebhookMessageRecord>(doc as StoredDocument<WebhookMessageRecord>);
  return {
    async enqueue(messages, options = {}) {
      if (messages.length > 0) {
        try {
          await untyped.insertMany(messages.map(toDocument), { ordered: false });
        } catch (error) {
          const writeErrors = (error as { writeErrors?: unknown[] | unknown }).writeErrors;
          const all = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
          // Duplicates are events already queued (by this or another instance); anything else is a failure.
          if (all.length === 0 || !all.every((e) => isDuplicateKeyError(e) || (e as { code?: number }).code === 11000)) throw error;
        }
      }
      if (options.cursor !== undefined) {
        // $max: instances fanning out concurrently never move the shared cursor back.
        await state.updateOne({ _id: "audit_cursor" }, { $max: { value: options.cursor } }, { upsert: true });
      }
    },
    async cursor() {
      return (await state.findOne({ _id: "audit_cursor" }))?.value;
    },
    async claimDue(owner, now, leaseMs, limit) {
      const taken: WebhookMessageRecord[] = [];
      while (taken.length < limit) {
        const doc = await untyped.findOneAndUpdate(dueFilter(now), leaseUpdate(owner, now + leaseMs), {
          sort: { nextAttemptAt: 1 }, returnDocument: "after",
        });
        if (!doc) break;
        taken.push(toRecord(doc));
      }
      return taken;
    },
    async settle(id, owner, settlement) {
      const result = await untyped.updateOne({ _id: id, leaseOwner: owner }, settleUpdate(settlement, HISTORY));
      return result.matchedCount === 1;
    },
    async get(workspaceId, id) {
      const doc = await untyped.findOne({ _id: id, workspaceId });
      return doc ? toRecord(doc) : undefined;
    },
    async listByWebhook(workspaceId, webhookId, query) {
      return (await untyped.find(deliveriesFilter(workspaceId, webhookId, query), { sort: { _id: -1 }, limit: query.limit }).toArray())
        .map(toRecord);
    },
    async retry(workspaceId, id, now) {
      return (await untyped.updateOne({ _id: id, workspaceId }, retryUpdate(now))).matchedCount === 1;
    },
    async prune(before) {
      return (await untyped.deleteMany({ finishedAt: { $lt: before } })).deletedCount;
    },
  };
}



/** KeyExpiryScan over the keys collection's `expires` index. */
export function mongoKeyExpiryScan(keys: Collection<{ _id: string }>): KeyExpiryScan {
  return {
    async expiringBetween(from, to, limit) {
      const found = await keys.find(
        { expires: { $gt: from, $lte: to }, deletedAt: { $exists: false } },
        { sort: { expires: 1 }, limit, projection: { _id: 1, workspaceId: 1, apiId: 1, expires: 1 } },
      ).toArray();
      return found.map((d) => ({ id: d._id, workspaceId: (d as any).workspaceId, apiId: (d as any).apiId, expires: (d as any).expires }));
    },
  };
}
