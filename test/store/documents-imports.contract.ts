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

  const job = (n: number, state: MigrationJobRecord["state"]): MigrationJobRecord => ({
    id: `mig_${String(n).padStart(4, "0")}`, workspaceId: "ws_a", apiId: "api_0001", actor: { rootKeyId: "key_root", permissions: ["api.*.create_key"] },
    requestId: `req_${n}`, migrationId: "sha256_hex", keys: [{ hash: "ab" }], keyIds: ["key_1"], state, processed: 0, outcomes: [], createdAt: T + n,
  });

  it("migration jobs: stored, read in their workspace only, unfinished ones listed oldest first (ids and leases), progress replaced", async () => {
    const store = await fresh();
    for (const [n, state] of [[2, "queued"], [1, "running"], [3, "done"]] as const) await store.migrationJobs.insert(job(n, state));
    expect(await store.migrationJobs.get("ws_b", "mig_0001")).toBeUndefined();
    expect(await store.migrationJobs.unfinished()).toEqual([{ id: "mig_0001" }, { id: "mig_0002" }]);
    const lease = { owner: "runner_a", until: T + 100 };
    expect(await store.migrationJobs.claim("mig_0001", lease, T)).toEqual({ ...job(1, "running"), lease });
    const done = { ...job(1, "done"), processed: 1, outcomes: [{ index: 0, hash: "ab", keyId: "key_1" }], finishedAt: T + 9, lease };
    expect(await store.migrationJobs.saveProgress(done)).toBe(true);
    expect(await store.migrationJobs.get("ws_a", "mig_0001")).toEqual(done);
    expect(await store.migrationJobs.unfinished()).toEqual([{ id: "mig_0002" }]);
    // Done, or never stored: nothing to claim.
    expect(await store.migrationJobs.claim("mig_0001", lease, T + 10)).toBeUndefined();
    expect(await store.migrationJobs.claim("mig_0009", lease, T + 10)).toBeUndefined();
    await expect(store.migrationJobs.insert(job(2, "queued"))).rejects.toBeInstanceOf(UniqueViolationError);
  });

  it("migration jobs: one runner holds a job until its lease runs out; only the holder's progress is stored; of two claims at once one wins", async () => {
    const store = await fresh();
    await store.migrationJobs.insert(job(1, "queued"));
    const a = { owner: "runner_a", until: T + 100 };
    const b = { owner: "runner_b", until: T + 300 };
    expect((await store.migrationJobs.claim("mig_0001", a, T))?.lease).toEqual(a);
    expect(await store.migrationJobs.claim("mig_0001", b, T + 99)).toBeUndefined();
    // The holder renews its own lease whenever it likes.
    const renewed = { owner: "runner_a", until: T + 200 };
    expect((await store.migrationJobs.claim("mig_0001", renewed, T + 99))?.lease).toEqual(renewed);
    expect(await store.migrationJobs.unfinished()).toEqual([{ id: "mig_0001", lease: renewed }]);
    expect(await store.migrationJobs.saveProgress({ ...job(1, "running"), processed: 1, lease: b })).toBe(false);
    expect(await store.migrationJobs.get("ws_a", "mig_0001")).toEqual({ ...job(1, "queued"), lease: renewed });
    // Run out: another runner claims it, and the old holder's progress is refused from then on.
    expect(await store.migrationJobs.claim("mig_0001", b, T + 200)).toEqual({ ...job(1, "queued"), lease: b });
    expect(await store.migrationJobs.saveProgress({ ...job(1, "running"), processed: 1, lease: renewed })).toBe(false);
    expect(await store.migrationJobs.get("ws_a", "mig_0001")).toEqual({ ...job(1, "queued"), lease: b });
    const claims = await Promise.all(["runner_c", "runner_d", "runner_e"].map((owner) => store.migrationJobs.claim("mig_0001", { owner, until: T + 900 }, T + 300)));
    expect(claims.filter((claimed) => claimed !== undefined)).toHaveLength(1);
    const winner = claims.find((claimed) => claimed !== undefined)!.lease!;
    expect((await store.migrationJobs.get("ws_a", "mig_0001"))?.lease).toEqual(winner);
  });
}
