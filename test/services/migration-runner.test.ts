import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { KeyImporter } from "../../src/services/keys/import-keys.js";
import { createMigrationRunner, JOB_SLICE } from "../../src/services/keys/migration-runner.js";
import { createEmbeddedDocumentStore } from "../../src/store/embedded/documents.js";
import { createMongoDocumentStore } from "../../src/store/mongo/documents.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { MigrationJobRecord } from "../../src/store/ports/migrations.js";
import { mongo, withDatabase } from "../support/mongo.js";

const T = 1_700_000_000_000;
const LEASE_MS = 30_000;
const KEYS = 3 * JOB_SLICE + 50; // four slices

/** A queued job of KEYS keys with pinned ids, as enqueueKeys stores it. */
const job = (n: number): MigrationJobRecord => ({
  id: `mig_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", apiId: "api_0001", actor: { rootKeyId: "key_root", permissions: ["api.*.create_key"] },
  requestId: `req_${n}`, migrationId: "sha256_hex", state: "queued", processed: 0, outcomes: [], createdAt: T + n,
  keys: Array.from({ length: KEYS }, (_, i) => ({ hash: `${n}_${i}` })),
  keyIds: Array.from({ length: KEYS }, (_, i) => `key_${n}_${i}`),
});

/** One slice a runner imported: which runner, which job, from which key. */
interface Slice {
  owner: string;
  jobId: string;
  offset: number;
}

/**
 * An importer that imports nothing but answers every key migrated under its pinned id, and notes each slice it was
 * given. `hold(offset)` makes the slice at that offset wait until `release()` (or forever): a runner stuck there is
 * as good as dead.
 */
function recordingImporter(owner: string, slices: Slice[]) {
  let held: number | undefined;
  let release = () => {};
  let reached = () => {};
  const reachedHold = new Promise<void>((resolve) => (reached = resolve));
  return {
    hold: (offset: number) => void (held = offset),
    reachedHold,
    release: () => release(),
    importerFor: (record: MigrationJobRecord) => ({
      async importKeys(_principal: unknown, request: { keys: { hash: string }[] }, options: { keyIds: string[]; offset: number }) {
        slices.push({ owner, jobId: record.id, offset: options.offset });
        if (options.offset === held) {
          reached();
          await new Promise<void>((resolve) => (release = resolve));
        }
        return { migrated: request.keys.map((key, i) => ({ index: options.offset + i, hash: key.hash, keyId: options.keyIds[i] })), failures: [] };
      },
    }) as unknown as KeyImporter,
  };
}

const backends: { label: string; skip: string; open: () => Promise<{ stores: [DocumentStore, DocumentStore]; close(): Promise<void> }> }[] = [
  {
    // One process holds an embedded store: both runners share it, as two runners of one process would.
    label: "embedded",
    skip: "",
    async open() {
      const dir = await mkdtemp(join(tmpdir(), "keyward-runner-"));
      const store = await createEmbeddedDocumentStore({ dir });
      return { stores: [store, store], close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
    },
  },
  {
    // Two instances: a client each, on one database.
    label: "mongo",
    skip: mongo.skip,
    async open() {
      const url = withDatabase(mongo.url!, `keyward_runner_${randomUUID().slice(0, 8)}`);
      const stores = [await createMongoDocumentStore({ url }), await createMongoDocumentStore({ url })] as [DocumentStore, DocumentStore];
      return {
        stores,
        async close() {
          for (const store of stores) await store.close();
          const admin = await new MongoClient(url).connect();
          await admin.db().dropDatabase();
          await admin.close();
        },
      };
    },
  },
];

for (const backend of backends) {
  (backend.skip ? describe.skip : describe)(`migration runners sharing a ${backend.label} store${backend.skip}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    afterAll(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    const clock = { t: T, now() { return this.t; } };
    const slices: Slice[] = [];
    const logs: string[] = [];

    async function setUp(jobs: number) {
      clock.t = T;
      slices.length = 0;
      logs.length = 0;
      const opened = await backend.open();
      cleanups.push(opened.close);
      for (let n = 1; n <= jobs; n++) await opened.stores[0].migrationJobs.insert(job(n));
      const runner = (owner: string, documents: DocumentStore) => {
        const importer = recordingImporter(owner, slices);
        const created = createMigrationRunner({
          documents, clock, owner, importerFor: importer.importerFor, leaseMs: LEASE_MS, adoptEveryMs: 20, log: (line) => logs.push(line),
        });
        return Object.assign(created, { importer });
      };
      return { stores: opened.stores, runner };
    }

    const offsets = Array.from({ length: Math.ceil(KEYS / JOB_SLICE) }, (_, i) => i * JOB_SLICE);
    /** The job as stored once finished: every key migrated once, under its pinned id, in order. */
    async function expectDone(documents: DocumentStore, id: string) {
      const stored = (await documents.migrationJobs.get("ws_a", id))!;
      expect({ state: stored.state, processed: stored.processed }).toEqual({ state: "done", processed: KEYS });
      expect(stored.outcomes.map((o) => o.keyId)).toEqual(job(Number(id.slice(4))).keyIds);
    }

    it("two runners starting at once work each job exactly once, each job by one of them", async () => {
      const { stores, runner } = await setUp(3);
      const a = runner("runner_a", stores[0]);
      const b = runner("runner_b", stores[1]);
      cleanups.push(async () => void (await Promise.all([a.stop(), b.stop()])));
      await Promise.all([a.resume(), b.resume()]);
      await Promise.all([a.idle(), b.idle()]);
      for (const id of ["mig_0001", "mig_0002", "mig_0003"]) {
        await expectDone(stores[0], id);
        const ofJob = slices.filter((s) => s.jobId === id);
        expect(ofJob.map((s) => s.offset)).toEqual(offsets);
        expect(new Set(ofJob.map((s) => s.owner)).size).toBe(1);
      }
      expect(slices).toHaveLength(3 * offsets.length);
      // Both took part: the second job went to whichever runner the first one did not hold.
      expect(new Set(slices.map((s) => s.owner))).toEqual(new Set(["runner_a", "runner_b"]));
      expect(logs).toEqual([]);
    });

    it("a runner that stopped renewing loses the job once its lease runs out; its late progress is refused and it leaves the job", async () => {
      const { stores, runner } = await setUp(1);
      const a = runner("runner_a", stores[0]);
      cleanups.push(async () => void (await a.stop()));
      a.importer.hold(JOB_SLICE); // stuck in its second slice, as a process that hangs or died
      await a.resume();
      await a.importer.reachedHold;
      const b = runner("runner_b", stores[1]);
      cleanups.push(async () => void (await b.stop()));
      await b.resume();
      // b looks every 20 ms, but a's lease (renewed with its first slice's progress) still holds.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(slices.filter((s) => s.owner === "runner_b")).toEqual([]);
      clock.t = T + LEASE_MS; // the lease runs out: b's next look takes the job up from a's last stored progress
      await expect.poll(async () => (await stores[0].migrationJobs.get("ws_a", "mig_0001"))?.state, { timeout: 5_000 }).toBe("done");
      expect(slices.filter((s) => s.owner === "runner_b").map((s) => s.offset)).toEqual(offsets.slice(1));
      a.importer.release();
      await a.idle();
      expect(logs).toEqual(["migration mig_0001: its lease ran out and another runner took it over; leaving it to that one"]);
      await expectDone(stores[0], "mig_0001");
      expect((await stores[0].migrationJobs.get("ws_a", "mig_0001"))?.lease?.owner).toBe("runner_b");
    });

    it("a stopped runner gives its lease up: another takes the job up at once, from where it stopped", async () => {
      const { stores, runner } = await setUp(1);
      const a = runner("runner_a", stores[0]);
      a.importer.hold(JOB_SLICE);
      await a.resume();
      await a.importer.reachedHold;
      const stopped = a.stop(); // after the slice in progress
      a.importer.release();
      await stopped;
      const left = (await stores[0].migrationJobs.get("ws_a", "mig_0001"))!;
      expect({ state: left.state, processed: left.processed, lease: left.lease }).toEqual({
        state: "running", processed: 2 * JOB_SLICE, lease: { owner: "runner_a", until: T },
      });
      const b = runner("runner_b", stores[1]);
      cleanups.push(async () => void (await b.stop()));
      await b.resume();
      await b.idle();
      await expectDone(stores[0], "mig_0001");
      expect(slices.map((s) => `${s.owner}@${s.offset}`)).toEqual(["runner_a@0", "runner_a@100", "runner_b@200", "runner_b@300"]);
    });

    it("a restart under the same owner (a store one process holds alone) takes its job up without waiting for the lease", async () => {
      const { stores, runner } = await setUp(1);
      const before = runner("this-process", stores[0]);
      before.importer.hold(JOB_SLICE); // killed in its second slice: it never writes again
      cleanups.push(async () => void before.stop()); // only its timer: its slice never ends
      await before.resume();
      await before.importer.reachedHold;
      const after = runner("this-process", stores[0]);
      cleanups.push(async () => void (await after.stop()));
      await after.resume();
      await after.idle();
      await expectDone(stores[0], "mig_0001");
      expect(slices.filter((s) => s.owner === "this-process").map((s) => s.offset)).toEqual([0, 100, 100, 200, 300]);
    });
  });
}
