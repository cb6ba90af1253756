import { describe, expect, it } from "vitest";
import { collectionNames, documentIndexes } from "../../src/store/mongo/indexes.js";
import {
  fromOverrideDocument,
  namespaceByIdFilter,
  namespaceByNameFilter,
  overrideByIdentifierFilter,
  overrideCandidatesFilter,
  overrideChangeUpdate,
  overridesOfNamespaceFilter,
  overridesPageQuery,
  toOverrideDocument,
} from "../../src/store/mongo/ratelimit-filters.js";
import type { RatelimitOverrideRecord } from "../../src/store/ports/ratelimits.js";

const record = (identifier: string): RatelimitOverrideRecord => ({
  id: "rlor_1", workspaceId: "ws_a", namespaceId: "rlns_1", identifier, limit: 5, duration: 60_000, createdAt: 1_700_000_000_000,
});

describe("mongo rate-limit filters and mapping", () => {
  it("an override document carries `pattern: true` only when its identifier has a `*`, and reads back without it", () => {
    expect(toOverrideDocument(record("user_*"))).toStrictEqual({
      _id: "rlor_1", workspaceId: "ws_a", namespaceId: "rlns_1", identifier: "user_*", limit: 5, duration: 60_000,
      createdAt: 1_700_000_000_000, pattern: true,
    });
    expect(toOverrideDocument(record("user_1"))).not.toHaveProperty("pattern");
    expect(fromOverrideDocument(toOverrideDocument(record("user_*")))).toStrictEqual(record("user_*"));
    expect(fromOverrideDocument(toOverrideDocument(record("user_1")))).toStrictEqual(record("user_1"));
  });

  it("namespaces are looked up within their workspace, by id or by name", () => {
    expect(namespaceByIdFilter("ws_a", "rlns_1")).toStrictEqual({ _id: "rlns_1", workspaceId: "ws_a" });
    expect(namespaceByNameFilter("ws_a", "email")).toStrictEqual({ workspaceId: "ws_a", name: "email" });
  });

  it("an override is addressed by workspace, namespace and its exact identifier text", () => {
    expect(overrideByIdentifierFilter("ws_a", "rlns_1", "user_*")).toStrictEqual({ workspaceId: "ws_a", namespaceId: "rlns_1", identifier: "user_*" });
  });

  it("changing an override sets limit, duration and updatedAt only", () => {
    expect(overrideChangeUpdate({ ...record("u"), limit: 9, duration: 1_000, createdAt: 42 })).toStrictEqual({
      $set: { limit: 9, duration: 1_000, updatedAt: 42 },
    });
  });

  it("a limit call's candidates are the exact identifier or any pattern of the namespace", () => {
    expect(overrideCandidatesFilter("ws_a", "rlns_1", "user_1")).toStrictEqual({
      workspaceId: "ws_a", namespaceId: "rlns_1", $or: [{ identifier: "user_1" }, { pattern: true }],
    });
  });

  it("lists page by _id after the cursor within one namespace; limit < 1 is no query", () => {
    expect(overridesOfNamespaceFilter("ws_a", "rlns_1")).toStrictEqual({ workspaceId: "ws_a", namespaceId: "rlns_1" });
    expect(overridesPageQuery("ws_a", "rlns_1", { limit: 3, after: "rlor_1" })).toStrictEqual({
      filter: { workspaceId: "ws_a", namespaceId: "rlns_1", _id: { $gt: "rlor_1" } },
      options: { sort: { _id: 1 }, limit: 3 },
    });
    expect(overridesPageQuery("ws_a", "rlns_1", { limit: 0 })).toBeNull();
  });

  it("declares the two collections with a unique namespace name and a unique identifier per namespace", () => {
    expect(collectionNames.ratelimitNamespaces).toBe("ratelimit_namespaces");
    expect(collectionNames.ratelimitOverrides).toBe("ratelimit_overrides");
    const byName = new Map(documentIndexes().map((c) => [c.collection, c.indexes]));
    expect(byName.get("ratelimit_namespaces")).toStrictEqual([
      { name: "workspace_name", key: { workspaceId: 1, name: 1 }, unique: true },
      // The listing: equality on the workspace, then keyset pagination on _id.
      { name: "workspace_id", key: { workspaceId: 1, _id: 1 } },
    ]);
    expect(byName.get("ratelimit_overrides")).toStrictEqual([
      { name: "workspace_namespace_identifier", key: { workspaceId: 1, namespaceId: 1, identifier: 1 }, unique: true },
      { name: "workspace_namespace_id", key: { workspaceId: 1, namespaceId: 1, _id: 1 } },
      { name: "workspace_namespace_patterns", key: { workspaceId: 1, namespaceId: 1 }, partialFilterExpression: { pattern: true } },
    ]);
  });
});
