import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedEventStore } from "../../src/store/embedded/events.js";
import { createMemoryEventStore } from "../../src/store/memory-events.js";
import { createMongoEventStore } from "../../src/store/mongo/events.js";
import { eventsCollectionOptions } from "../../src/store/mongo/events-filters.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";
import { runAnalyticsContract, sortRows } from "./analytics.contract.js";

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "keyward-analytics-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

runAnalyticsContract("embedded", async () => createEmbeddedEventStore({ dir: await tempDir() }));
runAnalyticsContract("memory", async () => createMemoryEventStore());

const mongoUrl = process.env.MONGODB_URL;
const skipReason = mongoUrl ? "" : " [skipped: MONGODB_URL is unset and no MongoDB server runs here]";
(mongoUrl ? describe : describe.skip)(`mongo analytics${skipReason}`, () => {
  const client = mongoUrl ? new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5000 }) : undefined;
  const prefix = `keyward_analytics_${randomUUID().slice(0, 8)}`;
  const names: string[] = [];
  afterAll(async () => {
    for (const name of names) await client?.db(name).dropDatabase();
    await client?.close();
  });
  // A database per store: each case starts from no events.
  runAnalyticsContract("mongo", async () => {
    names.push(`${prefix}_${names.length + 1}`);
    return createMongoEventStore({ db: client!.db(names[names.length - 1]) });
  });

  it.skip("expires events past KEYWARD_EVENTS_RETENTION_DAYS [skipped: TTL deletion is the server's TTL monitor; the MongoDB emulator has none and no mongod runs here; the TTL option itself is checked in events-mongo.test.ts and below]", () => {});
});

describe("mongo retention option", () => {
  it("KEYWARD_EVENTS_RETENTION_DAYS becomes the time-series collection's expireAfterSeconds (90 days = 7 776 000 s)", () => {
    expect(eventsCollectionOptions(90 * 86_400_000).expireAfterSeconds).toBe(7_776_000);
    expect(eventsCollectionOptions(86_400_000).expireAfterSeconds).toBe(86_400);
  });
});

describe("embedded analytics cache", () => {
  const HOUR = 3_600_000;
  const T = Date.UTC(2030, 0, 1);
  const event = (time: number, outcome = "VALID"): VerificationEvent => ({
    time, workspaceId: "ws_A", apiId: "api_1", keyId: "key_1", outcome, tags: [], creditsSpent: 0, latencyMs: 1, requestId: "req_1",
  });
  const query = { workspaceId: "ws_A", start: T, end: T + 3 * HOUR, granularity: "hour" as const, groupBy: [] };

  it("keeps cached segments current as events are appended, and a reopened store reads the same counts from disk", async () => {
    const dir = await tempDir();
    const store = await createEmbeddedEventStore({ dir });
    store.record(event(T));
    await store.flush();
    expect(await store.query(query)).toEqual([{ time: T, total: 1, outcomes: { VALID: 1 }, creditsSpent: 0 }]);
    store.record(event(T + 1, "RATE_LIMITED"));
    store.record(event(T + HOUR));
    await store.flush();
    const expected = [
      { time: T, total: 2, outcomes: { VALID: 1, RATE_LIMITED: 1 }, creditsSpent: 0 },
      { time: T + HOUR, total: 1, outcomes: { VALID: 1 }, creditsSpent: 0 },
    ];
    expect(sortRows(await store.query(query))).toEqual(expected);
    await store.close();
    const reopened = await createEmbeddedEventStore({ dir });
    expect(sortRows(await reopened.query(query))).toEqual(expected);
    await reopened.close();
  });

  it("answers correctly when the cache holds fewer events than the query spans (segments evicted as it goes)", async () => {
    const store = await createEmbeddedEventStore({ dir: await tempDir(), maxCachedEvents: 1 });
    for (let hour = 0; hour < 3; hour++) for (let i = 0; i <= hour; i++) store.record(event(T + hour * HOUR + i));
    await store.flush();
    expect(sortRows(await store.query(query)).map((r) => [r.time, r.total])).toEqual([[T, 1], [T + HOUR, 2], [T + 2 * HOUR, 3]]);
    expect(sortRows(await store.query(query)).map((r) => r.total)).toEqual([1, 2, 3]);
    await store.close();
  });
});
