import { randomUUID } from "node:crypto";
import { MongoClient, type Db } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMongoEventStore } from "../../src/store/mongo/events.js";
import { mongo } from "../support/mongo.js";
import { runEventStoreContract } from "./events.contract.js";
import { runLastUseContract } from "./last-use.contract.js";

const mongoUrl = mongo.url;

// MONGODB_URL names a real server; without it test/setup/mongo.ts starts the wire emulator. The collection options,
// $match and pipeline are also checked without a server in events-mongo-filters.test.ts.
(mongoUrl ? describe : describe.skip)(`mongo verification events${mongo.skip}`, () => {
  const runPrefix = `keyward_events_${randomUUID().slice(0, 8)}`;
  const databases: Db[] = [];
  let client: MongoClient;
  /** A database of its own per store, dropped after the file. */
  const freshDb = () => {
    const db = client.db(`${runPrefix}_${databases.length + 1}`);
    databases.push(db);
    return db;
  };

  beforeAll(async () => {
    client = await new MongoClient(mongoUrl!, { serverSelectionTimeoutMS: 5000 }).connect();
  });
  afterAll(async () => {
    try {
      for (const db of databases) await db.dropDatabase();
    } finally {
      await client?.close();
    }
  });

  // Retention is the server's TTL monitor (it runs once a minute), so the clock-driven cases do not apply.
  runEventStoreContract("mongo", (options) => createMongoEventStore({ db: freshDb(), ...options }), { clockRetention: false });

  runLastUseContract("mongo", (options) => createMongoEventStore({ db: freshDb(), ...options }));

  describe("last use across instances", () => {
    it("two stores on one database (two instances) read each other's last use, and the later time wins", async () => {
      const db = freshDb();
      const a = await createMongoEventStore({ db, flushIntervalMs: 3_600_000 });
      const b = await createMongoEventStore({ db, flushIntervalMs: 3_600_000 });
      const use = (time: number) => ({
        time, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: [], creditsSpent: 0, latencyMs: 1, requestId: "req_1",
      });
      a.record(use(1_700_000_000_500));
      await a.flush();
      expect(await b.lastUsed("ws_1", ["key_1"])).toStrictEqual(new Map([["key_1", 1_700_000_000_500]]));
      // B flushes an earlier verification after A's later one: $max keeps A's.
      b.record(use(1_700_000_000_100));
      await b.flush();
      expect(await a.lastUsed("ws_1", ["key_1"])).toStrictEqual(new Map([["key_1", 1_700_000_000_500]]));
      expect(await db.collection("key_last_used").find().toArray()).toStrictEqual([
        { _id: "key_1", lastUsedAt: 1_700_000_000_500, workspaceId: "ws_1" },
      ]);
      await a.close();
      await b.close();
    });
  });

  describe("collection set-up", () => {
    it("creates verification_events as a time-series collection expiring after the retention", async () => {
      const db = freshDb();
      const store = await createMongoEventStore({ db, retention: { maxAgeMs: 7 * 86_400_000 } });
      await store.close();
      const [info] = await db.listCollections({ name: "verification_events" }).toArray();
      expect(info).toMatchObject({
        type: "timeseries",
        options: { expireAfterSeconds: 604_800, timeseries: { timeField: "time", metaField: "meta", granularity: "seconds" } },
      });
      const indexes = await db.collection("verification_events").listIndexes().toArray();
      expect(indexes.find((index) => index.name === "workspace_time")?.key).toStrictEqual({ "meta.workspaceId": 1, time: 1 });
    });

    it("opens an existing collection again and applies a changed retention", async () => {
      const db = freshDb();
      await (await createMongoEventStore({ db })).close();
      await (await createMongoEventStore({ db })).close();
      await (await createMongoEventStore({ db, retention: { maxAgeMs: 3_600_000 } })).close();
      const [info] = await db.listCollections({ name: "verification_events" }).toArray();
      expect(info).toMatchObject({ type: "timeseries", options: { expireAfterSeconds: 3_600 } });
    });

    it("refuses a plain collection of the same name instead of writing events that never expire", async () => {
      const db = freshDb();
      await db.createCollection("verification_events");
      await expect(createMongoEventStore({ db })).rejects.toThrow("exists but is not a time-series collection");
    });

    it("stores the event as a document with a Date time and meta", async () => {
      const db = freshDb();
      const store = await createMongoEventStore({ db });
      const time = 1_700_002_800_123;
      store.record({
        time, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", identityId: "id_1", outcome: "VALID", tags: ["eu"],
        creditsSpent: 1, latencyMs: 0.5, requestId: "req_1",
      });
      await store.close();
      const docs = await db.collection("verification_events").find({}, { projection: { _id: 0 } }).toArray();
      expect(docs).toStrictEqual([{
        time: new Date(time), meta: { workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", identityId: "id_1" },
        outcome: "VALID", tags: ["eu"], creditsSpent: 1, latencyMs: 0.5, requestId: "req_1",
      }]);
    });
  });
});
