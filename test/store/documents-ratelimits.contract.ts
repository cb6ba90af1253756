import { expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { RatelimitNamespaceRecord, RatelimitOverrideRecord } from "../../src/store/ports/ratelimits.js";

const T = 1_700_000_000_000;

/**
 * The RatelimitNamespaceStore and RatelimitOverrideStore part of the document contract; runDocumentStoreContract
 * (documents.contract.ts) calls it inside its describe with its `fresh()`.
 */
export function ratelimitContract(fresh: () => Promise<DocumentStore>): void {
  it("a namespace is found by id and by name in its workspace only", async () => {
    const store = await fresh();
    await store.ratelimitNamespaces.insert(namespace(1, "ws_a", "email.outbound"));
    expect(await store.ratelimitNamespaces.get("ws_a", "rlns_0001")).toEqual(namespace(1, "ws_a", "email.outbound"));
    expect(await store.ratelimitNamespaces.findByName("ws_a", "email.outbound")).toEqual(namespace(1, "ws_a", "email.outbound"));
    expect(await store.ratelimitNamespaces.get("ws_b", "rlns_0001")).toBeUndefined();
    expect(await store.ratelimitNamespaces.findByName("ws_b", "email.outbound")).toBeUndefined();
    expect(await store.ratelimitNamespaces.findByName("ws_a", "email")).toBeUndefined();
  });

  it("a namespace name is unique per workspace: a second one is refused, another workspace may reuse it", async () => {
    const store = await fresh();
    await store.ratelimitNamespaces.insert(namespace(1, "ws_a", "api"));
    await expect(store.ratelimitNamespaces.insert(namespace(2, "ws_a", "api"))).rejects.toBeInstanceOf(UniqueViolationError);
    await store.ratelimitNamespaces.insert(namespace(3, "ws_b", "api"));
    expect(await store.ratelimitNamespaces.get("ws_a", "rlns_0002")).toBeUndefined();
    expect((await store.ratelimitNamespaces.findByName("ws_b", "api"))?.id).toBe("rlns_0003");
  });

  it("set creates an override, and setting the same identifier again changes it in place", async () => {
    const store = await fresh();
    expect(await store.ratelimitOverrides.set(override(1, "user_1", { limit: 5 }))).toEqual(override(1, "user_1", { limit: 5 }));
    const changed = await store.ratelimitOverrides.set(override(2, "user_1", { limit: 7, duration: 2_000, createdAt: T + 9 }));
    expect(changed).toEqual({ ...override(1, "user_1", { limit: 7, duration: 2_000 }), updatedAt: T + 9 });
    expect(await store.ratelimitOverrides.get("ws_a", "rlns_0001", "user_1")).toEqual(changed);
    expect(await store.ratelimitOverrides.count("ws_a", "rlns_0001")).toBe(1);
  });

  it("concurrent sets of one identifier leave exactly one override", async () => {
    const store = await fresh();
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => store.ratelimitOverrides.set(override(i, "same", { limit: i }))));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await store.ratelimitOverrides.count("ws_a", "rlns_0001")).toBe(1);
  });

  it("candidates are the exact override plus every pattern of the namespace, nothing of other namespaces", async () => {
    const store = await fresh();
    await store.ratelimitOverrides.set(override(1, "user_1"));
    await store.ratelimitOverrides.set(override(2, "user_2"));
    await store.ratelimitOverrides.set(override(3, "user_*"));
    await store.ratelimitOverrides.set(override(4, "*"));
    await store.ratelimitOverrides.set(override(5, "user_1", { namespaceId: "rlns_0002" }));
    await store.ratelimitOverrides.set(override(6, "user_*", { workspaceId: "ws_b" }));
    const ids = async (identifier: string) =>
      (await store.ratelimitOverrides.candidates("ws_a", "rlns_0001", identifier)).map((o) => o.id).sort();
    expect(await ids("user_1")).toEqual(["rlor_0001", "rlor_0003", "rlor_0004"]);
    expect(await ids("nobody")).toEqual(["rlor_0003", "rlor_0004"]);
    expect(await ids("user_*")).toEqual(["rlor_0003", "rlor_0004"]);
  });

  it("delete removes one override and answers false when there is none", async () => {
    const store = await fresh();
    await store.ratelimitOverrides.set(override(1, "user_*"));
    expect(await store.ratelimitOverrides.delete("ws_b", "rlns_0001", "user_*")).toBe(false);
    expect(await store.ratelimitOverrides.delete("ws_a", "rlns_0001", "user_*")).toBe(true);
    expect(await store.ratelimitOverrides.delete("ws_a", "rlns_0001", "user_*")).toBe(false);
    expect(await store.ratelimitOverrides.get("ws_a", "rlns_0001", "user_*")).toBeUndefined();
    expect(await store.ratelimitOverrides.candidates("ws_a", "rlns_0001", "user_1")).toEqual([]);
    await store.ratelimitOverrides.set(override(2, "user_*"));
    expect((await store.ratelimitOverrides.get("ws_a", "rlns_0001", "user_*"))?.id).toBe("rlor_0002");
  });

  it("list pages a namespace's overrides by id; count counts them", async () => {
    const store = await fresh();
    for (let i = 1; i <= 5; i++) await store.ratelimitOverrides.set(override(i, `user_${i}`));
    await store.ratelimitOverrides.set(override(6, "user_6", { namespaceId: "rlns_0002" }));
    const first = await store.ratelimitOverrides.list("ws_a", "rlns_0001", { limit: 2 });
    expect(first.map((o) => o.id)).toEqual(["rlor_0001", "rlor_0002"]);
    const rest = await store.ratelimitOverrides.list("ws_a", "rlns_0001", { limit: 10, after: "rlor_0002" });
    expect(rest.map((o) => o.id)).toEqual(["rlor_0003", "rlor_0004", "rlor_0005"]);
    expect(rest[0]).toEqual(override(3, "user_3"));
    expect(await store.ratelimitOverrides.count("ws_a", "rlns_0001")).toBe(5);
    expect(await store.ratelimitOverrides.list("ws_b", "rlns_0001", { limit: 10 })).toEqual([]);
  });
}

function namespace(n: number, workspaceId: string, name: string): RatelimitNamespaceRecord {
  return { id: `rlns_${String(n).padStart(4, "0")}`, workspaceId, name, createdAt: T + n };
}

function override(n: number, identifier: string, fields: Partial<RatelimitOverrideRecord> = {}): RatelimitOverrideRecord {
  return {
    id: `rlor_${String(n).padStart(4, "0")}`,
    workspaceId: "ws_a",
    namespaceId: "rlns_0001",
    identifier,
    limit: 10,
    duration: 60_000,
    createdAt: T,
    ...fields,
  };
}
