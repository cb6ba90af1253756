import { describe, expect, it } from "vitest";
import { byIdsFilter, takenHashesQuery } from "../../src/store/mongo/filters.js";
import { documentIndexes } from "../../src/store/mongo/indexes.js";
import { unfinishedJobsQuery } from "../../src/store/mongo/migration-jobs.js";

describe("MongoDB filters of imports", () => {
  it("takenHashes reads only the hash of keys holding any of them, deleted or not (no deletedAt condition)", () => {
    expect(takenHashesQuery(["h1", "h2"])).toEqual({ filter: { hash: { $in: ["h1", "h2"] } }, options: { projection: { hash: 1, _id: 0 } } });
  });

  it("a failed insertMany takes back exactly its own documents, by id", () => {
    expect(byIdsFilter(["key_1", "key_2"])).toEqual({ _id: { $in: ["key_1", "key_2"] } });
  });

  it("unfinished jobs are those not done, oldest first, served by the state_id index", () => {
    expect(unfinishedJobsQuery()).toEqual({ filter: { state: { $ne: "done" } }, options: { sort: { _id: 1 } } });
    expect(documentIndexes().find((c) => c.collection === "migration_jobs")?.indexes).toEqual([{ name: "state_id", key: { state: 1, _id: 1 } }]);
  });
});
