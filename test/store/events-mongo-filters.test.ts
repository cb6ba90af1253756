import { Long } from "mongodb";
import { describe, expect, it } from "vitest";
import {
  EVENTS_COLLECTION, bucketRow, eventAggregatePipeline, eventDocument, eventIndexes, eventMatch, eventsCollectionOptions,
  expireAfterSecondsFor,
} from "../../src/store/mongo/events-filters.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";

const T = 1_700_002_800_000;
const event: VerificationEvent = {
  time: T + 1, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: ["eu"],
  creditsSpent: 2, latencyMs: 0.75, requestId: "req_1",
};

describe("mongo verification events: pure pieces", () => {
  it("creates a time-series collection keyed by time and meta, expiring after the retention in whole seconds", () => {
    expect(EVENTS_COLLECTION).toBe("verification_events");
    expect(eventsCollectionOptions()).toStrictEqual({
      timeseries: { timeField: "time", metaField: "meta", granularity: "seconds" },
      expireAfterSeconds: 2_592_000,
    });
    expect(eventsCollectionOptions(90_500).expireAfterSeconds).toBe(91); // rounded up, never expiring early
    expect(expireAfterSecondsFor(86_400_000)).toBe(86_400);
    expect(() => expireAfterSecondsFor(0)).toThrow(RangeError);
    expect(() => expireAfterSecondsFor(Number.NaN)).toThrow(RangeError);
  });

  it("indexes workspace then time, the prefix of every query", () => {
    expect(eventIndexes()).toStrictEqual([{ name: "workspace_time", key: { "meta.workspaceId": 1, time: 1 } }]);
  });

  it("stores an event with a Date time and its series in meta, leaving an absent identity out", () => {
    expect(eventDocument(event)).toStrictEqual({
      time: new Date(T + 1),
      meta: { workspaceId: "ws_1", apiId: "api_1", keyId: "key_1" },
      outcome: "VALID", tags: ["eu"], creditsSpent: 2, latencyMs: 0.75, requestId: "req_1",
    });
    const withIdentity = eventDocument({ ...event, identityId: "id_1" });
    expect(withIdentity.meta).toStrictEqual({ workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", identityId: "id_1" });
    expect(Object.keys(withIdentity.meta)).toStrictEqual(["workspaceId", "apiId", "keyId", "identityId"]);
  });

  it("matches the workspace and [since, until) alone when no filter is given", () => {
    expect(eventMatch({ workspaceId: "ws_1", since: T, until: T + 60_000 })).toStrictEqual({
      "meta.workspaceId": "ws_1",
      time: { $gte: new Date(T), $lt: new Date(T + 60_000) },
    });
  });

  it("adds each filter given: meta fields by equality, outcome, and a tag by array containment", () => {
    expect(
      eventMatch({
        workspaceId: "ws_1", since: T, until: T + 1, apiId: "api_1", keyId: "key_1", identityId: "id_1",
        outcome: "RATE_LIMITED", tag: "eu",
      }),
    ).toStrictEqual({
      "meta.workspaceId": "ws_1",
      time: { $gte: new Date(T), $lt: new Date(T + 1) },
      "meta.apiId": "api_1",
      "meta.keyId": "key_1",
      "meta.identityId": "id_1",
      outcome: "RATE_LIMITED",
      tags: "eu",
    });
  });

  it("groups by floor(epoch ms / bucketMs) * bucketMs and outcome, sorted oldest first", () => {
    const ms = { $toLong: "$time" };
    const rest = { $mod: [ms, 60_000] };
    expect(eventAggregatePipeline({ workspaceId: "ws_1", since: T, until: T + 1, tag: "eu", bucketMs: 60_000 })).toStrictEqual([
      { $match: { "meta.workspaceId": "ws_1", time: { $gte: new Date(T), $lt: new Date(T + 1) }, tags: "eu" } },
      {
        $group: {
          _id: { time: { $subtract: [ms, { $cond: [{ $lt: [rest, 0] }, { $add: [rest, 60_000] }, rest] }] }, outcome: "$outcome" },
          count: { $sum: 1 },
        },
      },
      { $project: { _id: 0, time: "$_id.time", outcome: "$_id.outcome", count: 1 } },
      { $sort: { time: 1, outcome: 1 } },
    ]);
  });

  it("refuses a bucket that is not a positive integer and a range that is not unix ms", () => {
    const base = { workspaceId: "ws_1", since: T, until: T + 1 };
    expect(() => eventAggregatePipeline({ ...base, bucketMs: 0 })).toThrow("bucketMs must be a positive integer, got 0");
    expect(() => eventAggregatePipeline({ ...base, bucketMs: 1.5 })).toThrow(RangeError);
    expect(() => eventAggregatePipeline({ ...base, since: Number.NaN, bucketMs: 1000 })).toThrow(RangeError);
  });

  it("turns pipeline rows into plain numbers, also when the bucket arrives as a Long", () => {
    expect(bucketRow({ time: Long.fromNumber(T), outcome: "VALID", count: 3 })).toStrictEqual({ time: T, outcome: "VALID", count: 3 });
    expect(bucketRow({ time: T, outcome: "EXPIRED", count: 1 })).toStrictEqual({ time: T, outcome: "EXPIRED", count: 1 });
  });
});
