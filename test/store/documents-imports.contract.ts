import { expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { KeyRecord } from "../../src/store/ports/key-records.js";
import type { MigrationJobRecord } from "../../src/store/ports/migrations.js";
import { skipNote } from "./documents-rbac.contract.js";

const T = 1_700_000_000_000;

const key = (n: number, extra: Partial<KeyRecord> = {}): KeyRecord => ({
  id: `key_imp${String(n).padStart(4, "0")}`, workspaceId: "ws_a", apiId: "api_0001", hash: `ihash_${n}`, start: "",
  createdAt: T, enabled: true, ratelimits: [], permissions: [], roles: [], ...extra,
});

/** The import verbs of the document contract: KeyStore.insertMany / takenHashes and the MigrationJobStore. */
export function importContract(fresh: () => Promise<DocumentStore>, gaps: { rollback?: string } = {}): void {
  it("insertMany inserts every key at once; takenHashes names exactly the hashes held, deleted keys' included", async () => {
    const store = await fresh();
    const keys = [1, 2, 3].map((n) => key(n, { name: `k${n}` }));
    await store.keys.insertMany(keys);
    for (const k of keys) expect(await store.keys.findByHash(k.hash)).toEqual(k);
    expect(await store.keys.markDeleted("ws_a", keys[2].id, T + 1)).toBe(true);
    expect(await store.keys.takenHashes(["ihash_1", "ihash_3", "ihash_9"])).toEqual(new Set(["ihash_1", "ihash_3"]));
    expect(await store.keys.takenHashes([])).toEqual(new Set());
    await store.keys.insertMany([]);
    expect(await store.keys.countByApi("ws_a", "api_0001")).toBe(2);
  });

  it.skipIf(gaps.rollback !== undefined)(`insertMany is all or none: a taken hash (or one repeated within the call) refuses the call and inserts nothing${skipNote(gaps.rollback)}`, async () => {
    const store = await fresh();
    await store.keys.insert(key(1));
    await expect(store.keys.insertMany([key(2), key(3), key(4, { hash: "ihash_1" })])).rejects.toBeInstanceOf(UniqueViolationError);
    await expect(store.keys.insertMany([key(5), key(6, { hash: "ihash_5" })])).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await store.keys.takenHashes(["ihash_2", "ihash_3", "ihash_5"])).toEqual(new Set());
    expect(await store.keys.countByApi("ws_a", "api_0001")).toBe(1);
  });

  it("migration jobs: stored, read in their workspace only, progress replaced, unfinished ones listed oldest first", async () => {
    const store = await fresh();
    const job = (n: number, state: MigrationJobRecord["state"]): MigrationJobRecord => ({
      id: `mig_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", apiId: "api_0001", actor: { rootKeyId: "key_root", permissions: ["api.*.create_key"] },
      requestId: `req_${n}`, migrationId: "sha256_hex", keys: [{ hash: "ab" }], keyIds: ["key_1"], state, processed: 0, outcomes: [], createdAt: T + n,
    });
    for (const [n, state] of [[2, "queued"], [1, "running"], [3, "done"]] as const) await store.migrationJobs.insert(job(n, state));
    expect(await store.migrationJobs.get("ws_b", "mig_0001")).toBeUndefined();
    expect((await store.migrationJobs.unfinished()).map((j) => j.id)).toEqual(["mig_0001", "mig_0002"]);
    const done = { ...job(1, "done"), processed: 1, outcomes: [{ index: 0, hash: "ab", keyId: "key_1" }], finishedAt: T + 9 };
    await store.migrationJobs.saveProgress(done);
    expect(await store.migrationJobs.get("ws_a", "mig_0001")).toEqual(done);
    expect((await store.migrationJobs.unfinished()).map((j) => j.id)).toEqual(["mig_0002"]);
    await expect(store.migrationJobs.insert(job(2, "queued"))).rejects.toBeInstanceOf(UniqueViolationError);
  });
}
