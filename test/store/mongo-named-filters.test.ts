import { describe, expect, it } from "vitest";
import { apisPageQuery, namespacesPageQuery } from "../../src/store/mongo/named-filters.js";

describe("mongo listings of named records (apis, rate-limit namespaces)", () => {
  it("pages the live apis of a workspace by _id, served by the {workspaceId, _id} index", () => {
    expect(apisPageQuery("ws_a", { limit: 3 })).toStrictEqual({
      filter: { workspaceId: "ws_a", deletedAt: { $exists: false } },
      options: { sort: { _id: 1 }, limit: 3 },
    });
    expect(apisPageQuery("ws_a", { limit: 3, after: "api_2" })).toStrictEqual({
      filter: { workspaceId: "ws_a", deletedAt: { $exists: false }, _id: { $gt: "api_2" } },
      options: { sort: { _id: 1 }, limit: 3 },
    });
    expect(apisPageQuery("ws_a", { limit: 0 })).toBeNull();
  });

  it("searches the name with an escaped, case-insensitive regex: the text matches literally", () => {
    expect(namespacesPageQuery("ws_a", { limit: 2, search: "user(1)+.*" })).toStrictEqual({
      filter: { workspaceId: "ws_a", name: { $regex: "user\\(1\\)\\+\\.\\*", $options: "i" } },
      options: { sort: { _id: 1 }, limit: 2 },
    });
    const pattern = new RegExp(namespacesPageQuery("ws_a", { limit: 1, search: "^a|b$[c]" })!.filter.name!.$regex, "i");
    expect(pattern.test("x^A|B$[C]y")).toBe(true);
    expect(pattern.test("a")).toBe(false);
  });

  it("narrows to granted ids with $in beside the cursor's $gt, each id once", () => {
    expect(apisPageQuery("ws_a", { limit: 5, after: "api_2", ids: ["api_3", "api_1", "api_3"], search: "shop" })).toStrictEqual({
      filter: {
        workspaceId: "ws_a", deletedAt: { $exists: false }, _id: { $gt: "api_2", $in: ["api_3", "api_1"] },
        name: { $regex: "shop", $options: "i" },
      },
      options: { sort: { _id: 1 }, limit: 5 },
    });
    expect(namespacesPageQuery("ws_a", { limit: 5, ids: [] })!.filter).toStrictEqual({ workspaceId: "ws_a", _id: { $in: [] } });
  });
});
