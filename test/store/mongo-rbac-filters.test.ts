import { describe, expect, it } from "vitest";
import {
  batchFilter, holdersFilter, PERMISSION_SEARCH_FIELDS, permissionsBySlugsFilter, pullUpdate, rbacByIdFilter, rbacPageQuery, roleReplaceFilter, rolesByNamesFilter,
} from "../../src/store/mongo/rbac-filters.js";

describe("mongo rbac filters", () => {
  it("finds one permission or role by id within its workspace only", () => {
    expect(rbacByIdFilter("ws_a", "perm_1")).toStrictEqual({ _id: "perm_1", workspaceId: "ws_a" });
  });

  it("looks slugs and names up with $in, each once", () => {
    expect(permissionsBySlugsFilter("ws_a", ["a", "b", "a"])).toStrictEqual({ workspaceId: "ws_a", slug: { $in: ["a", "b"] } });
    expect(rolesByNamesFilter("ws_a", ["admin"])).toStrictEqual({ workspaceId: "ws_a", name: { $in: ["admin"] } });
  });

  it("pages a workspace by _id and refuses limits below 1", () => {
    expect(rbacPageQuery("ws_a", { limit: 2 })).toStrictEqual({ filter: { workspaceId: "ws_a" }, options: { sort: { _id: 1 }, limit: 2 } });
    expect(rbacPageQuery("ws_a", { limit: 2, after: "role_1" })).toStrictEqual({
      filter: { workspaceId: "ws_a", _id: { $gt: "role_1" } }, options: { sort: { _id: 1 }, limit: 2 },
    });
    expect(rbacPageQuery("ws_a", { limit: 0 })).toBeNull();
  });

  it("a role replacement matches its id, workspace, unchanged name and the revision read", () => {
    expect(roleReplaceFilter({ id: "role_1", workspaceId: "ws_a", name: "admin" })).toStrictEqual({
      _id: "role_1", workspaceId: "ws_a", name: "admin", revision: { $in: [0, null] },
    });
    expect(roleReplaceFilter({ id: "role_1", workspaceId: "ws_a", name: "admin", revision: 4 })).toStrictEqual({
      _id: "role_1", workspaceId: "ws_a", name: "admin", revision: 4,
    });
  });

  it("a cascade matches the workspace's holders of the value and pulls it from their list", () => {
    expect(holdersFilter("permissions", "ws_a", "docs.read")).toStrictEqual({ workspaceId: "ws_a", permissions: "docs.read" });
    expect(holdersFilter("roles", "ws_a", "admin")).toStrictEqual({ workspaceId: "ws_a", roles: "admin" });
    // The cascade also bumps the holder's revision (roles and keys), so a replace that read the list before it fails.
    expect(pullUpdate("roles", "admin")).toStrictEqual({ $pull: { roles: "admin" }, $inc: { revision: 1 } });
    expect(pullUpdate("permissions", "docs.read")).toStrictEqual({ $pull: { permissions: "docs.read" }, $inc: { revision: 1 } });
  });

  it("a refused batch is deleted again by its own ids", () => {
    expect(batchFilter(["perm_1", "perm_2"])).toStrictEqual({ _id: { $in: ["perm_1", "perm_2"] } });
  });

  it("a search matches any of the fields case-insensitively, with regex characters taken literally", () => {
    expect(rbacPageQuery("ws_a", { limit: 5, search: "docs.(r)*" }, PERMISSION_SEARCH_FIELDS)?.filter).toStrictEqual({
      workspaceId: "ws_a",
      $or: ["_id", "name", "slug", "description"].map((field) => ({ [field]: { $regex: "docs\\.\\(r\\)\\*", $options: "i" } })),
    });
  });
});
