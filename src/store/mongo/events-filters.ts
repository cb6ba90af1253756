/** Pure pieces of the MongoDB event adapter: collection options, documents, $match and the aggregation pipeline. */
import type { CreateCollectionOptions, Document, IndexDescription } from "mongodb";
import { checkAggregateQuery, type EventAggregateQuery } from "../event-aggregation.js";
import type { VerificationEvent, VerificationEventQuery } from "../ports/events.js";

export const EVENTS_COLLECTION = "verification_events";
export const DEFAULT_EVENT_MAX_AGE_MS = 30 * 86_400_000;

/** The stored shape: a time-series document whose series (meta) is the workspace/api/key/identity. */
export interface EventDocument {
  time: Date;
  meta: { workspaceId: string; apiId: string; keyId: string; identityId?: string };
  outcome: string;
  tags: string[];
  creditsSpent: number;
  latencyMs: number;
  requestId: string;
}

/** TTL in whole seconds, rounded up so an event is never expired before its age passes `maxAgeMs`. */
export function expireAfterSecondsFor(maxAgeMs = DEFAULT_EVENT_MAX_AGE_MS): number {
  if (!Number.isFinite(maxAgeMs) || maxAgeMs <= 0) throw new RangeError(`maxAgeMs must be positive, got ${maxAgeMs}`);
  return Math.ceil(maxAgeMs / 1000);
}

/** Options creating the time-series collection; the server deletes whole buckets past `expireAfterSeconds`. */
export function eventsCollectionOptions(maxAgeMs?: number): CreateCollectionOptions {
  return {
    timeseries: { timeField: "time", metaField: "meta", granularity: "seconds" },
    expireAfterSeconds: expireAfterSecondsFor(maxAgeMs),
  };
}

/** Every query pins a workspace and a time range; the rest of the filters narrow inside that. */
export function eventIndexes(): IndexDescription[] {
  return [{ name: "workspace_time", key: { "meta.workspaceId": 1, time: 1 } }];
}

/**
 * The document for one event. `meta` keys are always in the same order and an absent identity is left out
 * (not null): the series is the meta value as a whole, so one key's events share one series.
 */
export function eventDocument(event: VerificationEvent): EventDocument {
  const meta: EventDocument["meta"] = { workspaceId: event.workspaceId, apiId: event.apiId, keyId: event.keyId };
  if (event.identityId !== undefined) meta.identityId = event.identityId;
  return {
    time: new Date(event.time),
    meta,
    outcome: event.outcome,
    tags: event.tags ?? [],
    creditsSpent: event.creditsSpent,
    latencyMs: event.latencyMs,
    requestId: event.requestId,
  };
}

/** $match of a query: `since <= time < until`, meta fields by equality, a tag by array containment. */
export function eventMatch(query: VerificationEventQuery): Document {
  const match: Document = {
    "meta.workspaceId": query.workspaceId,
    time: { $gte: new Date(query.since), $lt: new Date(query.until) },
  };
  if (query.apiId !== undefined) match["meta.apiId"] = query.apiId;
  if (query.keyId !== undefined) match["meta.keyId"] = query.keyId;
  if (query.identityId !== undefined) match["meta.identityId"] = query.identityId;
  if (query.outcome !== undefined) match.outcome = query.outcome;
  if (query.tag !== undefined) match.tags = query.tag;
  return match;
}

/**
 * Counts per (bucket, outcome), oldest first. The bucket is arithmetic on epoch ms, floor(ms / bucketMs) *
 * bucketMs, rather than $dateTrunc, whose bins align to a reference date and cannot express every bucketMs.
 * $mod keeps the dividend's sign, so times before 1970 step down one more bucket.
 */
export function eventAggregatePipeline(query: EventAggregateQuery): Document[] {
  checkAggregateQuery(query);
  const ms = { $toLong: "$time" };
  const rest = { $mod: [ms, query.bucketMs] };
  const floorRest = { $cond: [{ $lt: [rest, 0] }, { $add: [rest, query.bucketMs] }, rest] };
  return [
    { $match: eventMatch(query) },
    { $group: { _id: { time: { $subtract: [ms, floorRest] }, outcome: "$outcome" }, count: { $sum: 1 } } },
    { $project: { _id: 0, time: "$_id.time", outcome: "$_id.outcome", count: 1 } },
    { $sort: { time: 1, outcome: 1 } },
  ];
}

/** A pipeline row as the port returns it (the bucket may arrive as a BSON Long when promoteLongs is off). */
export function bucketRow(row: Document): { time: number; outcome: string; count: number } {
  return { time: Number(row.time), outcome: String(row.outcome), count: Number(row.count) };
}
