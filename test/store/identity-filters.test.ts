import { describe, expect, it } from "vitest";
import { containsPattern, identitySearchFilter, identitySearchPageQuery } from "../../src/store/mongo/identity-filters.js";

describe("MongoDB identity search filters", () => {
  it("escapes every regex character so the text matches literally, ignoring case", () => {
    const pattern = containsPattern("a.b*c+(d)[e]{f}^$|?\\g");
    expect(pattern).toEqual({ $regex: "a\\.b\\*c\\+\\(d\\)\\[e\\]\\{f\\}\\^\\$\\|\\?\\\\g", $options: "i" });
    expect(new RegExp(pattern.$regex, pattern.$options).test("xx A.B*C+(D)[E]{F}^$|?\\G yy")).toBe(true);
    expect(new RegExp(pattern.$regex, pattern.$options).test("aXb*c+(d)[e]{f}^$|?\\g")).toBe(false);
  });

  it("searches the live identities of one workspace by id or external id", () => {
    const pattern = { $regex: "acme", $options: "i" };
    expect(identitySearchFilter("ws_a", "acme")).toEqual({
      workspaceId: "ws_a", deletedAt: { $exists: false }, $or: [{ _id: pattern }, { externalId: pattern }],
    });
  });

  it("pages by id after the cursor, and asks nothing for a page of 0", () => {
    const pattern = { $regex: "acme", $options: "i" };
    expect(identitySearchPageQuery("ws_a", "acme", { limit: 10, after: "id_0002" })).toEqual({
      filter: { workspaceId: "ws_a", deletedAt: { $exists: false }, _id: { $gt: "id_0002" }, $or: [{ _id: pattern }, { externalId: pattern }] },
      options: { sort: { _id: 1 }, limit: 10 },
    });
    expect(identitySearchPageQuery("ws_a", "acme", { limit: 0 })).toBeNull();
  });
});
