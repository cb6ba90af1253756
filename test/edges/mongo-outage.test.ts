import { randomBytes } from "node:crypto";
import { MongoClient, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorUrl, findMongoEmulator, startMongoEmulator, type MongoEmulatorHandle } from "../../scripts/mongo-emulator.mjs";
import type { MongoEventStore } from "../../src/store/mongo/events.js";
import { startKeyward, type RunningKeyward } from "../support/keyward.js";
import { restClient } from "../support/rest.js";

// Stopping and restarting the server needs the emulator (a process of our own); it keeps data in memory only, so the
// test copies the database before the outage and puts it back after the restart, as a real server would keep it.
const runSh = findMongoEmulator();
const skip = runSh ? "" : " [skipped: the mongo emulator (shared/mongo-emulator/run.sh) is not beside the repository]";
const DB = "keyward_outage";
/** The bound under test: every request that needs MongoDB answers within timeoutMS (plus the response). */
const TIMEOUT_MS = 1000;
const BOUND_MS = TIMEOUT_MS + 1500;

describe.runIf(runSh)(`a MongoDB outage under load${skip}`, () => {
  let emulator: MongoEmulatorHandle;
  let keyward: RunningKeyward;
  let rest: ReturnType<typeof restClient>;
  let apiId: string;
  let key: string;

  beforeAll(async () => {
    emulator = await startMongoEmulator();
    const url = `${emulatorUrl(emulator.port, DB)}&timeoutMS=${TIMEOUT_MS}&serverSelectionTimeoutMS=500`;
    keyward = await startKeyward({ mongodbUrl: url });
    rest = restClient(keyward.baseUrl);
    apiId = (await rest.v2("apis.createApi", { name: "outage" }, keyward.rootKey)).body.data.apiId;
    key = (await rest.v2("keys.createKey", { apiId }, keyward.rootKey)).body.data.key;
  });
  afterAll(async () => {
    await keyward?.stop().catch(() => {});
    await emulator?.stop();
  });

  const verify = (k: string) => rest.v2("keys.verifyKey", { key: k }, keyward.rootKey);
  const events = () => keyward.stores.events as MongoEventStore;

  it("answers 503 within the bound while MongoDB is down, loses no verification event, and resumes by itself", async () => {
    for (let i = 0; i < 3; i++) expect((await verify(key)).body.data).toMatchObject({ valid: true, code: "VALID" });
    await events().flush();
    const saved = await copyDatabase(emulator.port);

    await emulator.stop();
    // Load: verifications of the known key (served from the key cache, or 503), of unknown keys (they need
    // MongoDB) and management calls, all at once.
    const started = performance.now();
    const calls = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const t0 = performance.now();
      const response = i % 3 === 0 ? await verify(key)
        : i % 3 === 1 ? await verify(`unknown_${randomBytes(8).toString("hex")}`)
        : await rest.v2("keys.createKey", { apiId }, keyward.rootKey);
      return { kind: i % 3, status: response.status, body: response.body, ms: performance.now() - t0 };
    }));
    expect(performance.now() - started).toBeLessThan(BOUND_MS * 2);
    for (const call of calls) {
      expect(call.ms).toBeLessThan(BOUND_MS);
      if (call.status === 503) {
        expect(call.body.error).toMatchObject({ status: 503, title: "Service Unavailable" });
        expect(JSON.stringify(call.body)).not.toContain("127.0.0.1");
      } else {
        // Only a known key whose record is cached can still verify without MongoDB.
        expect({ kind: call.kind, status: call.status, code: call.body.data?.code }).toEqual({ kind: 0, status: 200, code: "VALID" });
      }
    }
    const unavailable = calls.filter((c) => c.status === 503);
    expect(unavailable.filter((c) => c.kind !== 0)).toHaveLength(20);
    const validDuringOutage = calls.filter((c) => c.status === 200).length;
    await expect(events().flush()).rejects.toThrow();
    expect(events().stats()).toMatchObject({ buffered: validDuringOutage, dropped: 0 });

    emulator = await startMongoEmulator({ port: emulator.port });
    await restoreDatabase(emulator.port, saved);
    // The driver finds the server again on its next heartbeat (every 500 ms while an operation waits); until then an
    // attempt fails within its bound, as the batcher's timer and a client's retry would see it.
    await eventually(() => events().flush());
    expect(events().stats()).toMatchObject({ buffered: 0, dropped: 0 });

    // Resumed by itself: no restart of Keyward, the same connection string.
    const resumed = await eventually(async () => {
      const response = await verify(key);
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      return response;
    });
    expect(resumed.body.data).toMatchObject({ valid: true, code: "VALID" });
    expect((await rest.v2("keys.createKey", { apiId }, keyward.rootKey)).status).toBe(200);
    await events().flush();
    const stored = await countEvents(emulator.port);
    expect(stored).toBe(3 + validDuringOutage + 1);
  });
});

type Saved = Record<string, Document[]>;

/** Runs `attempt` until it resolves, at most 10 times; each attempt is bounded by the store's timeoutMS. */
async function eventually<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= 10) throw error;
    }
  }
}

async function withClient<T>(port: number, run: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = await new MongoClient(emulatorUrl(port, DB), { serverSelectionTimeoutMS: 5000 }).connect();
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

function copyDatabase(port: number): Promise<Saved> {
  return withClient(port, async (client) => {
    const saved: Saved = {};
    for (const { name } of await client.db(DB).listCollections({}, { nameOnly: true }).toArray()) {
      saved[name] = await client.db(DB).collection(name).find({}).toArray();
    }
    return saved;
  });
}

/**
 * Puts the saved documents back. Keyward may already have written one of them again (its buffered last-use times
 * are flushed as soon as the server answers, which under load can come before this restore): that newer one is kept.
 */
function restoreDatabase(port: number, saved: Saved): Promise<void> {
  return withClient(port, async (client) => {
    for (const [name, docs] of Object.entries(saved)) {
      for (const doc of docs) {
        await client.db(DB).collection(name).insertOne(doc).catch((error: { code?: number }) => {
          if (error.code !== 11000) throw error;
        });
      }
    }
  });
}

function countEvents(port: number): Promise<number> {
  return withClient(port, (client) => client.db(DB).collection("verification_events").countDocuments({}));
}
