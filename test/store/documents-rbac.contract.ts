import { expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { KeyRecord } from "../../src/store/ports/key-records.js";
import type { PermissionRecord, RoleRecord } from "../../src/store/ports/rbac.js";

/**
 * The PermissionStore and RoleStore part of the document contract; runDocumentStoreContract calls it inside its
 * describe with its `fresh()` (a new, empty store closed after each case).
 */
export function rbacContract(fresh: () => Promise<DocumentStore>, gaps: { rollback?: string } = {}): void {
  it("inserted permissions are found by id and slug in their workspace only, with every field", async () => {
    const store = await fresh();
    const full = permission(1, "ws_a", "docs.read", { description: "reads docs", updatedAt: T + 5 });
    await store.permissions.insert([full, permission(2, "ws_a", "docs.write")]);
    expect(await store.permissions.get("ws_a", "perm_0001")).toEqual(full);
    expect(await store.permissions.get("ws_b", "perm_0001")).toBeUndefined();
    expect(sortById(await store.permissions.findBySlugs("ws_a", ["docs.write", "docs.read", "nope", "docs.read"]))).toEqual([
      full, permission(2, "ws_a", "docs.write"),
    ]);
    expect(await store.permissions.findBySlugs("ws_b", ["docs.read"])).toEqual([]);
  });

  it.skipIf(gaps.rollback !== undefined)(`a slug or name taken in the workspace is refused with UniqueViolationError and nothing of the batch is written; other workspaces may reuse it${skipNote(gaps.rollback)}`, async () => {
    const store = await fresh();
    await store.permissions.insert([permission(1, "ws_a", "docs.read")]);
    const taken = await store.permissions.insert([permission(2, "ws_a", "other"), permission(3, "ws_a", "docs.read")]).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(UniqueViolationError);
    // Named by its fields on every backend and path (a bulk insert included).
    expect(taken).toMatchObject({ collection: "permissions", index: "workspaceId,slug" });
    expect(await store.permissions.findBySlugs("ws_a", ["other"])).toEqual([]);
    await expect(store.permissions.insert([permission(4, "ws_a", "x", { name: "docs.read" })])).rejects.toBeInstanceOf(UniqueViolationError);
    await store.permissions.insert([permission(5, "ws_b", "docs.read")]);
    expect(await store.permissions.get("ws_b", "perm_0005")).toEqual(permission(5, "ws_b", "docs.read"));
  });

  it("lists a workspace's permissions and roles by id with keyset pages", async () => {
    const store = await fresh();
    await store.permissions.insert([1, 2, 3].map((n) => permission(n, "ws_a", `p${n}`)));
    await store.permissions.insert([permission(4, "ws_b", "p4")]);
    expect(ids(await store.permissions.list("ws_a", { limit: 2 }))).toEqual(["perm_0001", "perm_0002"]);
    expect(ids(await store.permissions.list("ws_a", { limit: 2, after: "perm_0002" }))).toEqual(["perm_0003"]);
    for (const n of [1, 2, 3]) await store.roles.insert(role(n, n === 2 ? "ws_b" : "ws_a", `r${n}`));
    expect(ids(await store.roles.list("ws_a", { limit: 10 }))).toEqual(["role_0001", "role_0003"]);
    expect(ids(await store.roles.list("ws_a", { limit: 10, after: "role_0001" }))).toEqual(["role_0003"]);
  });

  it("roles are found by id and name in their workspace; a taken name is refused; replace keeps the name", async () => {
    const store = await fresh();
    const admin = role(1, "ws_a", "admin", { permissions: ["p1", "p2"], description: "all" });
    await store.roles.insert(admin);
    expect(await store.roles.get("ws_a", "role_0001")).toEqual(admin);
    expect(await store.roles.get("ws_b", "role_0001")).toBeUndefined();
    expect(await store.roles.findByNames("ws_a", ["admin", "ghost"])).toEqual([admin]);
    await expect(store.roles.insert(role(2, "ws_a", "admin"))).rejects.toBeInstanceOf(UniqueViolationError);
    const edited = { ...admin, permissions: ["p3"], updatedAt: T + 9 };
    expect(await store.roles.replace(edited)).toBe(true);
    expect(await store.roles.get("ws_a", "role_0001")).toEqual({ ...edited, revision: 1 });
    expect(await store.roles.replace({ ...edited, revision: 1, name: "renamed" })).toBe(false);
    expect(await store.roles.replace({ ...edited, revision: 1, workspaceId: "ws_b" })).toBe(false);
  });

  it("deleting a permission removes its slug from every role and key of its workspace, and nothing elsewhere", async () => {
    const store = await fresh();
    await store.permissions.insert([permission(1, "ws_a", "p1"), permission(2, "ws_a", "p2"), permission(3, "ws_b", "p1")]);
    await store.roles.insert(role(1, "ws_a", "r", { permissions: ["p1", "p2"] }));
    await store.roles.insert(role(2, "ws_b", "r", { permissions: ["p1"] }));
    await store.keys.insert(key(1, "ws_a", { permissions: ["p1", "p2"], roles: ["r"] }));
    await store.keys.insert(key(2, "ws_b", { permissions: ["p1"] }));
    expect(await store.permissions.delete("ws_b", "perm_0001")).toBe(false);
    expect(await store.permissions.delete("ws_a", "perm_0001")).toBe(true);
    expect(await store.permissions.get("ws_a", "perm_0001")).toBeUndefined();
    expect((await store.roles.get("ws_a", "role_0001"))?.permissions).toEqual(["p2"]);
    expect((await store.keys.get("ws_a", "key_0001"))?.permissions).toEqual(["p2"]);
    expect((await store.roles.get("ws_b", "role_0002"))?.permissions).toEqual(["p1"]);
    expect((await store.keys.get("ws_b", "key_0002"))?.permissions).toEqual(["p1"]);
    expect(await store.permissions.delete("ws_a", "perm_0001")).toBe(false);
    // The slug is free again.
    await store.permissions.insert([permission(9, "ws_a", "p1")]);
    expect((await store.keys.get("ws_a", "key_0001"))?.permissions).toEqual(["p2"]);
  });

  it("deleting a role removes its name from every key of its workspace only", async () => {
    const store = await fresh();
    await store.roles.insert(role(1, "ws_a", "admin"));
    await store.roles.insert(role(2, "ws_b", "admin"));
    await store.keys.insert(key(1, "ws_a", { roles: ["admin", "viewer"] }));
    await store.keys.insert(key(2, "ws_b", { roles: ["admin"] }));
    expect(await store.roles.delete("ws_a", "role_0002")).toBe(false);
    expect(await store.roles.delete("ws_a", "role_0001")).toBe(true);
    expect(await store.roles.get("ws_a", "role_0001")).toBeUndefined();
    expect((await store.keys.get("ws_a", "key_0001"))?.roles).toEqual(["viewer"]);
    expect((await store.keys.get("ws_b", "key_0002"))?.roles).toEqual(["admin"]);
    await store.roles.insert(role(3, "ws_a", "admin"));
    expect((await store.roles.findByNames("ws_a", ["admin"]))[0].id).toBe("role_0003");
  });

  it("a delete cascade moves each key's revision, so a key replace that read the list before it cannot write it back", async () => {
    const store = await fresh();
    await store.permissions.insert([permission(1, "ws_a", "p1")]);
    await store.roles.insert(role(1, "ws_a", "admin"));
    await store.keys.insert(key(1, "ws_a", { permissions: ["p1"], roles: ["admin"] }));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    expect(await store.permissions.delete("ws_a", "perm_0001")).toBe(true);
    expect(await store.keys.replace({ ...read, name: "stale" })).toBe(false);
    const afterPermission = (await store.keys.get("ws_a", "key_0001"))!;
    expect(afterPermission).toMatchObject({ permissions: [], roles: ["admin"], revision: 1 });
    expect(await store.roles.delete("ws_a", "role_0001")).toBe(true);
    expect(await store.keys.replace({ ...afterPermission, name: "stale" })).toBe(false);
    expect(await store.keys.get("ws_a", "key_0001")).toMatchObject({ permissions: [], roles: [], revision: 2 });
    expect((await store.keys.get("ws_a", "key_0001"))?.name).toBeUndefined();
  });

  it("a list search keeps items whose id, name, slug or description contains the text, ignoring case", async () => {
    const store = await fresh();
    await store.permissions.insert([
      permission(1, "ws_a", "docs.read", { description: "Reads DOCUMENTS" }),
      permission(2, "ws_a", "billing.write", { name: "Docs billing" }),
      permission(3, "ws_a", "users.read"),
      permission(4, "ws_b", "docs.read"),
    ]);
    expect(ids(await store.permissions.list("ws_a", { limit: 10, search: "DOC" }))).toEqual(["perm_0001", "perm_0002"]);
    expect(ids(await store.permissions.list("ws_a", { limit: 1, search: "doc", after: "perm_0001" }))).toEqual(["perm_0002"]);
    expect(ids(await store.permissions.list("ws_a", { limit: 10, search: "perm_0003" }))).toEqual(["perm_0003"]);
    expect(ids(await store.permissions.list("ws_a", { limit: 10, search: "s.(" }))).toEqual([]);
    await store.roles.insert(role(1, "ws_a", "Billing Manager"));
    await store.roles.insert(role(2, "ws_a", "viewer", { description: "reads billing" }));
    await store.roles.insert(role(3, "ws_a", "admin"));
    expect(ids(await store.roles.list("ws_a", { limit: 10, search: "billing" }))).toEqual(["role_0001", "role_0002"]);
  });
}

const T = 1_700_000_000_000;
/** A skipped case names why in its title. */
export const skipNote = (reason: string | undefined) => (reason ? ` [skipped: ${reason}]` : "");
const pad = (n: number) => String(n).padStart(4, "0");
const ids = (records: Array<{ id: string }>) => records.map((r) => r.id);
const sortById = <R extends { id: string }>(records: R[]) => [...records].sort((a, b) => a.id.localeCompare(b.id));

function permission(n: number, workspaceId: string, slug: string, extra: Partial<PermissionRecord> = {}): PermissionRecord {
  return { id: `perm_${pad(n)}`, workspaceId, name: slug, slug, createdAt: T + n, ...extra };
}

function role(n: number, workspaceId: string, name: string, extra: Partial<RoleRecord> = {}): RoleRecord {
  return { id: `role_${pad(n)}`, workspaceId, name, permissions: [], createdAt: T + n, ...extra };
}

function key(n: number, workspaceId: string, extra: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: `key_${pad(n)}`, workspaceId, apiId: "api_0001", hash: `khash_${pad(n)}`, start: "k_abc", createdAt: T + n,
    enabled: true, ratelimits: [], permissions: [], roles: [], ...extra,
  };
}
