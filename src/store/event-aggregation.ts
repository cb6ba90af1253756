import type { VerificationEvent, VerificationEventQuery } from "./ports/events.js";

export type EventAggregateQuery = VerificationEventQuery & { bucketMs: number };
export interface EventBucketCount {
  time: number;
  outcome: string;
  count: number;
}

/** Refuses a query no adapter could answer sensibly, with the same message everywhere. */
export function checkAggregateQuery(query: EventAggregateQuery): void {
  if (!Number.isSafeInteger(query.bucketMs) || query.bucketMs <= 0) {
    throw new RangeError(`bucketMs must be a positive integer, got ${query.bucketMs}`);
  }
  if (!Number.isFinite(query.since) || !Number.isFinite(query.until)) {
    throw new RangeError("since and until must be unix milliseconds");
  }
}

/** Whether an event falls in the query: `since <= time < until`, and every filter given matches exactly. */
export function eventMatches(event: VerificationEvent, query: VerificationEventQuery): boolean {
  return (
    event.workspaceId === query.workspaceId &&
    event.time >= query.since &&
    event.time < query.until &&
    (query.apiId === undefined || event.apiId === query.apiId) &&
    (query.keyId === undefined || event.keyId === query.keyId) &&
    (query.identityId === undefined || event.identityId === query.identityId) &&
    (query.outcome === undefined || event.outcome === query.outcome) &&
    (query.tag === undefined || (event.tags ?? []).includes(query.tag))
  );
}

/** The epoch-aligned bucket of a time: floor(time / bucketMs) * bucketMs (also for times before 1970). */
export function bucketStart(time: number, bucketMs: number): number {
  return Math.floor(time / bucketMs) * bucketMs;
}

/**
 * Counts matching events per (bucket, outcome). Feed it events in any order; `result()` is sorted by bucket, then
 * outcome, which is the order every adapter answers in.
 */
export function createEventCounter(query: EventAggregateQuery): {
  add(event: VerificationEvent): void;
  result(): EventBucketCount[];
} {
  checkAggregateQuery(query);
  const counts = new Map<number, Map<string, number>>();
  return {
    add(event) {
      if (!eventMatches(event, query)) return;
      const bucket = bucketStart(event.time, query.bucketMs);
      let byOutcome = counts.get(bucket);
      if (!byOutcome) counts.set(bucket, (byOutcome = new Map()));
      byOutcome.set(event.outcome, (byOutcome.get(event.outcome) ?? 0) + 1);
    },
    result() {
      const rows: EventBucketCount[] = [];
      for (const [time, byOutcome] of counts) {
        for (const [outcome, count] of byOutcome) rows.push({ time, outcome, count });
      }
      return rows.sort((a, b) => a.time - b.time || (a.outcome < b.outcome ? -1 : a.outcome > b.outcome ? 1 : 0));
    },
  };
}
