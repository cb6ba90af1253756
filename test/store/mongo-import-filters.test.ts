import { describe, expect, it } from "vitest";
import { byIdsFilter, takenHashesQuery } from "../../src/store/mongo/filters.js";
import { documentIndexes } from "../../src/store/mongo/indexes.js";
import { claimableJobFilter, unfinishedJobsQuery } from "../../src/store/mongo/migration-jobs.js";

describe("MongoDB filters of imports", () => {
  it("takenHashes reads only the hash of keys holding any of them, deleted or not (no deletedAt condition)", () => {
    expect(takenHashesQuery(["h1", "h2"])).toEqual({ filter: { hash: { $in: ["h1", "h2"] } }, options: { projection: { hash: 1, _id: 0 } } });
  });

  it("a failed insertMany takes back exactly its own documents, by id", () => {
    expect(byIdsFilter(["key_1", "key_2"])).toEqual({ _id: { $in: ["key_1", "key_2"] } });
  });

  it("unfinished jobs are those not done, oldest first, as ids and leases, served by the state_id index", () => {
    expect(unfinishedJobsQuery()).toEqual({ filter: { state: { $ne: "done" } }, options: { sort: { _id: 1 }, projection: { _id: 1, lease: 1 } } });
    expect(documentIndexes().find((c) => c.collection === "migration_jobs")?.indexes).toEqual([{ name: "state_id", key: { state: 1, _id: 1 } }]);
  });

  it("a job is claimable while not done and never leased, its lease run out, or held by the same owner", () => {
    expect(claimableJobFilter("mig_1", { owner: "runner_a", until: 2_000 }, 1_000)).toEqual({
      _id: "mig_1", state: { $ne: "done" }, $or: [{ lease: { $exists: false } }, { "lease.until": { $lte: 1_000 } }, { "lease.owner": "runner_a" }],
    });
  });
});
