import { describe, expect, it } from "vitest";
import { atNextRevision, revisionedReplaceFilter, revisionMatch } from "../../src/store/mongo/revision-filters.js";

describe("MongoDB revision filters (api, key, role and identity replaces)", () => {
  it("a replace matches the live record of its workspace at the revision read; revision 0 also matches a record without one", () => {
    expect(revisionedReplaceFilter({ id: "api_1", workspaceId: "ws_a", revision: 3 })).toEqual({
      _id: "api_1", workspaceId: "ws_a", deletedAt: { $exists: false }, revision: 3,
    });
    expect(revisionedReplaceFilter({ id: "api_1", workspaceId: "ws_a" })).toEqual({
      _id: "api_1", workspaceId: "ws_a", deletedAt: { $exists: false }, revision: { $in: [0, null] },
    });
    expect(revisionMatch(0)).toEqual({ $in: [0, null] });
  });

  it("the replacement is stored one revision past the one read", () => {
    const read: { id: string; revision?: number } = { id: "api_1", revision: 4 };
    const legacy: { id: string; revision?: number } = { id: "api_1" };
    expect(atNextRevision(read)).toEqual({ id: "api_1", revision: 5 });
    expect(atNextRevision(legacy)).toEqual({ id: "api_1", revision: 1 });
  });
});
