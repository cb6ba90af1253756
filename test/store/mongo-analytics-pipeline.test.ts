import { aggregate } from "mingo";
import { describe, expect, it } from "vitest";
import type { AnalyticsQuery } from "../../src/store/analytics-query.js";
import { analyticsIndexes, analyticsMatch, analyticsPipeline, analyticsRow } from "../../src/store/mongo/analytics-pipeline.js";
import { eventDocument } from "../../src/store/mongo/events-filters.js";
import { createMemoryEventStore } from "../../src/store/memory-events.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";
import { sortRows } from "./analytics.contract.js";

// No MongoDB server runs here: the pipeline is checked by shape, and run on the documents with mingo (the query
// engine the MongoDB emulator uses) against the in-memory adapter's answers for the same events.
const query = (fields: Partial<AnalyticsQuery> = {}): AnalyticsQuery => ({
  workspaceId: "ws_A", start: Date.UTC(2028, 0, 1), end: Date.UTC(2028, 3, 1), granularity: "month", groupBy: [], ...fields,
});

describe("mongo analytics pipeline", () => {
  it("matches on the workspace and [start, end) first, then $in filters; tags any is $in, all is $all", () => {
    expect(analyticsMatch(query({ apiIds: ["api_1"], keyIds: [], outcomes: ["VALID"], tags: ["a", "b"], tagsMatch: "all" }))).toStrictEqual({
      "meta.workspaceId": "ws_A",
      time: { $gte: new Date(Date.UTC(2028, 0, 1)), $lt: new Date(Date.UTC(2028, 3, 1)) },
      "meta.apiId": { $in: ["api_1"] },
      outcome: { $in: ["VALID"] },
      tags: { $all: ["a", "b"] },
    });
    expect(analyticsMatch(query({ tags: ["a"], identityIds: ["id_1"] }))).toMatchObject({ tags: { $in: ["a"] }, "meta.identityId": { $in: ["id_1"] } });
  });

  it("buckets with $dateTrunc in UTC, unwinds tags only when grouping by tag", () => {
    const plain = analyticsPipeline(query({ granularity: "hour", groupBy: ["outcome"] }));
    expect(plain.map((stage) => Object.keys(stage)[0])).toEqual(["$match", "$group", "$group", "$project"]);
    expect(plain[1].$group._id).toStrictEqual({
      time: { $dateTrunc: { date: "$time", unit: "hour" } }, outcome: "$outcome", outcomeCounted: "$outcome",
    });
    const byTag = analyticsPipeline(query({ groupBy: ["tag", "key"] }));
    expect(byTag[1]).toStrictEqual({ $unwind: "$tags" });
    expect(byTag[2].$group._id).toMatchObject({ tag: "$tags", keyId: "$meta.keyId" });
  });

  it("indexes lead with the workspace and end with time", () => {
    expect(analyticsIndexes().map((index) => Object.keys(index.key))).toEqual([
      ["meta.workspaceId", "meta.apiId", "time"], ["meta.workspaceId", "meta.keyId", "time"],
    ]);
  });

  it("run on event documents, answers what the in-memory adapter answers for every granularity and grouping", async () => {
    const events: VerificationEvent[] = [];
    const outcomes = ["VALID", "RATE_LIMITED", "USAGE_EXCEEDED"];
    for (let i = 0; i < 200; i++) {
      events.push({
        time: Date.UTC(2028, 1, 27) + i * 1_234_567, workspaceId: i % 7 === 0 ? "ws_B" : "ws_A", apiId: `api_${i % 2}`, keyId: `key_${i % 5}`,
        identityId: i % 3 === 0 ? undefined : `id_${i % 3}`, outcome: outcomes[i % 3], tags: i % 4 === 0 ? [] : [`t${i % 4}`, "all"],
        creditsSpent: i % 3 === 0 ? 1 : 0, latencyMs: 1, requestId: `req_${i}`,
      });
    }
    const memory = createMemoryEventStore();
    for (const event of events) memory.record(event);
    await memory.flush();
    const documents = events.map(eventDocument);
    const cases: Partial<AnalyticsQuery>[] = [
      { granularity: "month" }, { granularity: "day", groupBy: ["outcome"] }, { granularity: "hour", groupBy: ["tag", "api"] },
      { granularity: "minute", groupBy: ["identity"], keyIds: ["key_1", "key_2"] }, { granularity: "day", tags: ["t1", "all"], tagsMatch: "all" },
      { granularity: "day", groupBy: ["key"], outcomes: ["VALID"], start: Date.UTC(2028, 1, 29), end: Date.UTC(2028, 2, 1) },
    ];
    for (const fields of cases) {
      const q = query(fields);
      const rows = aggregate(documents, analyticsPipeline(q)).map((row) => analyticsRow(row as never, q.groupBy));
      expect(rows.length).toBeGreaterThan(0);
      expect(sortRows(rows)).toEqual(sortRows(await memory.query(q)));
    }
    await memory.close();
  });
});
