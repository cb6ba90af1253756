import { MongoClient } from "mongodb";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { emulatorUrl, findMongoEmulator, startMongoEmulator, type MongoEmulatorHandle } from "../../scripts/mongo-emulator.mjs";
import { StoreUnavailableError } from "../../src/store/errors.js";
import { createMongoDocumentStore } from "../../src/store/mongo/documents.js";
import { createMongoEventStore } from "../../src/store/mongo/events.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";
import type { RootKeyRecord } from "../../src/store/ports/root-keys.js";
import type { WorkspaceRecord } from "../../src/store/ports/workspaces.js";
import { bsonCommandMarker, startFaultProxy, type FaultProxy } from "../support/tcp-fault-proxy.js";

// These cases stop and restart a server, which only the emulator (a process of our own) allows.
const runSh = findMongoEmulator();
const skip = runSh ? "" : " [skipped: the mongo emulator (shared/mongo-emulator/run.sh) is not beside the repository]";
/** Short bounds, so an outage answers within a second; production defaults are in connection.ts. */
const BOUNDS = "timeoutMS=1000&serverSelectionTimeoutMS=500";

const event = (n: number): VerificationEvent => ({
  time: 1_700_000_000_000 + n, workspaceId: "ws_1", apiId: "api_1", keyId: `key_${n}`, outcome: "VALID", tags: [],
  creditsSpent: 0, latencyMs: 1, requestId: `req_${n}`,
});

/**
 * Runs `attempt` until it resolves, at most 10 times: after a restart the driver finds the server again on its next
 * heartbeat (every 500 ms while an operation waits), and an attempt before that fails within its bound.
 */
async function eventually<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= 10) throw error;
    }
  }
}

describe.runIf(runSh)(`mongo outages${skip}`, () => {
  let emulator: MongoEmulatorHandle;
  const restart = async () => {
    emulator = await startMongoEmulator({ port: emulator.port });
  };
  beforeAll(async () => {
    emulator = await startMongoEmulator();
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  it("verification events recorded while MongoDB is down are kept and written once it is back", async () => {
    const client = await new MongoClient(`${emulatorUrl(emulator.port, "events_outage")}&${BOUNDS}`).connect();
    try {
      const store = await createMongoEventStore({ db: client.db("events_outage"), flushIntervalMs: 3_600_000 });
      store.record(event(0));
      await store.flush();
      await emulator.stop();
      for (let n = 1; n <= 10; n++) store.record(event(n));
      await expect(store.flush()).rejects.toThrow();
      expect(store.stats()).toMatchObject({ written: 1, buffered: 10, dropped: 0, failedWrites: 1 });

      await restart(); // in memory: the restarted server is empty
      await eventually(() => store.flush());
      expect(store.stats()).toMatchObject({ written: 11, buffered: 0, dropped: 0 });
      const stored = await client.db("events_outage").collection("verification_events").find({}).toArray();
      expect(stored.map((doc) => doc.requestId).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `req_${i + 1}`).sort());
      await store.close();
    } finally {
      await client.close();
    }
  });

  describe("document store", () => {
    let store: DocumentStore;
    afterEach(async () => {
      await store?.close();
    });

    it("an operation during an outage rejects with StoreUnavailableError (503) within the bound, and the store resumes by itself", async () => {
      store = await createMongoDocumentStore({ url: `${emulatorUrl(emulator.port, "docs_outage")}&${BOUNDS}` });
      await emulator.stop();
      const started = performance.now();
      let reads: unknown;
      let writes: unknown;
      try {
        reads = await store.keys.findByHash("h").catch((e: unknown) => e);
        writes = await store.apis.insert({ id: "api_1", workspaceId: "ws_1", name: "a", createdAt: 1, deleteProtection: false, storeEncryptedKeys: false }).catch((e: unknown) => e);
      } finally {
        await restart(); // the cases below need the server back, whatever happened here
      }
      for (const error of [reads, writes]) {
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(error).toMatchObject({ kind: "unavailable", message: "The document store (MongoDB) is unavailable; try again shortly." });
      }
      // Both within the bound (timeoutMS is 1 s each); the restart is included, so the margin is generous.
      expect(performance.now() - started).toBeLessThan(8_000);
      await expect(eventually(() => store.keys.findByHash("h"))).resolves.toBeUndefined();
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });

  describe("through a faulty connection", () => {
    let proxy: FaultProxy;
    let store: DocumentStore;
    beforeAll(async () => {
      proxy = await startFaultProxy({ host: "127.0.0.1", port: emulator.port });
    });
    afterEach(async () => {
      proxy.mode = { kind: "pass" };
      await store?.close();
    });
    afterAll(async () => {
      await proxy?.close();
    });

    it("a server that stops answering is an outage after timeoutMS, not a hang", async () => {
      store = await createMongoDocumentStore({ url: `${emulatorUrl(proxy.port, "docs_hang")}&${BOUNDS}` });
      proxy.mode = { kind: "hang" };
      const started = performance.now();
      await expect(store.keys.findByHash("h")).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(performance.now() - started).toBeLessThan(4_000);
    });

    it("standalone: a root-key insert applied but unanswered leaves neither the root key nor its workspace", async () => {
      store = await createMongoDocumentStore({ url: `${emulatorUrl(proxy.port, "docs_lost_reply")}&${BOUNDS}` });
      const workspace: WorkspaceRecord = { id: "ws_0001", name: "w", createdAt: 1 };
      const rootKey: RootKeyRecord = { id: "key_0001", workspaceId: "ws_0001", hash: "hash_0001", start: "kw_", permissions: [], createdAt: 1 };
      proxy.mode = { kind: "lose-reply", marker: bsonCommandMarker("insert", "root_keys") };
      await expect(store.createWorkspace(workspace, rootKey)).rejects.toBeInstanceOf(StoreUnavailableError);
      proxy.mode = { kind: "pass" };
      expect(await store.rootKeys.findByHash("hash_0001")).toBeUndefined();
      expect(await store.workspaces.get("ws_0001")).toBeUndefined();
    });
  });
});
