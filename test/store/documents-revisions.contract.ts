import { expect, it } from "vitest";
import type { ApiRecord } from "../../src/store/ports/apis.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { IdentityRecord } from "../../src/store/ports/key-records.js";
import type { PermissionRecord, RoleRecord } from "../../src/store/ports/rbac.js";

/**
 * Optimistic concurrency of roles and identities (as keys have it in documents-keys.contract.ts): `replace` is a
 * compare-and-swap on the revision the caller read. Part of runDocumentStoreContract.
 */
export function revisionContract(fresh: () => Promise<DocumentStore>): void {
  it("a role replace stores revision + 1; a replace from a stale read answers false and changes nothing", async () => {
    const store = await fresh();
    await store.roles.insert(role(1, ["p1"]));
    const read = (await store.roles.get("ws_a", "role_0001"))!;
    expect(await store.roles.replace({ ...read, permissions: ["p2"] })).toBe(true);
    expect(await store.roles.get("ws_a", "role_0001")).toEqual({ ...read, permissions: ["p2"], revision: 1 });
    expect(await store.roles.replace({ ...read, permissions: ["stale"] })).toBe(false);
    expect(await store.roles.replace({ ...read, permissions: ["stale"], revision: 7 })).toBe(false);
    expect((await store.roles.get("ws_a", "role_0001"))?.permissions).toEqual(["p2"]);
  });

  it("two role replaces from the same read, concurrently: exactly one wins, and its list is stored", async () => {
    const store = await fresh();
    await store.roles.insert(role(1, []));
    const read = (await store.roles.get("ws_a", "role_0001"))!;
    const results = await Promise.all([
      store.roles.replace({ ...read, permissions: ["a"] }),
      store.roles.replace({ ...read, permissions: ["b"] }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const stored = (await store.roles.get("ws_a", "role_0001"))!;
    expect(stored.revision).toBe(1);
    expect(stored.permissions).toEqual(results[0] ? ["a"] : ["b"]);
  });

  it("a permission delete moves the revision of every role holding it: a replace that read the role before cannot write the slug back", async () => {
    const store = await fresh();
    await store.permissions.insert([permission(1, "p1"), permission(2, "p2")]);
    await store.roles.insert(role(1, ["p1", "p2"]));
    await store.roles.insert(role(2, ["p2"]));
    const read = (await store.roles.get("ws_a", "role_0001"))!;
    const untouched = (await store.roles.get("ws_a", "role_0002"))!;
    expect(await store.permissions.delete("ws_a", "perm_0001")).toBe(true);
    // setRolePermissions read the role (with p1) before the delete and writes it back with a description change.
    expect(await store.roles.replace({ ...read, description: "stale" })).toBe(false);
    expect(await store.roles.get("ws_a", "role_0001")).toEqual({ ...read, permissions: ["p2"], revision: 1 });
    // A role that did not hold the slug keeps its revision: its replace still succeeds.
    expect(await store.roles.replace({ ...untouched, description: "fresh" })).toBe(true);
  });

  it("an identity replace stores revision + 1; a replace from a stale read answers false and changes nothing", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "user_1"));
    const read = (await store.identities.get("ws_a", "id_0001"))!;
    expect(await store.identities.replace({ ...read, meta: { v: 1 }, updatedAt: T + 10 })).toBe(true);
    expect(await store.identities.get("ws_a", "id_0001")).toEqual({ ...read, meta: { v: 1 }, updatedAt: T + 10, revision: 1 });
    // Last writer no longer wins: the second update read revision 0 too.
    expect(await store.identities.replace({ ...read, meta: { v: "stale" }, updatedAt: T + 11 })).toBe(false);
    expect(await store.identities.replace({ ...read, externalId: "user_9", revision: 3 })).toBe(false);
    expect(await store.identities.get("ws_a", "id_0001")).toMatchObject({ externalId: "user_1", meta: { v: 1 }, revision: 1 });
    expect(await store.identities.findByExternalId("ws_a", "user_9")).toBeUndefined();
  });

  it("two identity replaces from the same read, concurrently: exactly one wins", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "user_1"));
    const read = (await store.identities.get("ws_a", "id_0001"))!;
    const results = await Promise.all([
      store.identities.replace({ ...read, meta: { by: "a" } }),
      store.identities.replace({ ...read, meta: { by: "b" } }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.identities.get("ws_a", "id_0001")).toMatchObject({ meta: { by: results[0] ? "a" : "b" }, revision: 1 });
  });

  it("an api replace stores its settings at revision + 1; a stale read, another workspace or a deleted api answer false", async () => {
    const store = await fresh();
    await store.apis.insert(api(1));
    const read = (await store.apis.get("ws_a", "api_0001"))!;
    const settings = { name: "renamed", ipWhitelist: ["10.0.0.0/8", "::1"], deleteProtection: true, defaultPrefix: "sk", defaultBytes: 32, updatedAt: T + 10 };
    expect(await store.apis.replace({ ...read, ...settings })).toBe(true);
    expect(await store.apis.get("ws_a", "api_0001")).toEqual({ ...read, ...settings, revision: 1 });
    expect(await store.apis.replace({ ...read, name: "stale" })).toBe(false);
    expect(await store.apis.replace({ ...read, workspaceId: "ws_b", revision: 1 })).toBe(false);
    expect((await store.apis.get("ws_a", "api_0001"))?.name).toBe("renamed");
    expect(await store.apis.markDeleted("ws_a", "api_0001", T + 20)).toBe(true);
    expect(await store.apis.replace({ ...read, revision: 1, name: "revived" })).toBe(false);
    expect(await store.apis.get("ws_a", "api_0001")).toBeUndefined();
  });

  it("two api replaces from the same read, concurrently: exactly one wins", async () => {
    const store = await fresh();
    await store.apis.insert(api(2));
    const read = (await store.apis.get("ws_a", "api_0002"))!;
    const results = await Promise.all([store.apis.replace({ ...read, name: "by-a" }), store.apis.replace({ ...read, name: "by-b" })]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.apis.get("ws_a", "api_0002")).toMatchObject({ name: results[0] ? "by-a" : "by-b", revision: 1 });
  });
}

function api(n: number): ApiRecord {
  return { id: `api_${pad(n)}`, workspaceId: "ws_a", name: `api-${n}`, createdAt: T + n, deleteProtection: false, storeEncryptedKeys: false };
}

const T = 1_700_000_000_000;
const pad = (n: number) => String(n).padStart(4, "0");

function permission(n: number, slug: string): PermissionRecord {
  return { id: `perm_${pad(n)}`, workspaceId: "ws_a", name: slug, slug, createdAt: T + n };
}

function role(n: number, permissions: string[]): RoleRecord {
  return { id: `role_${pad(n)}`, workspaceId: "ws_a", name: `role${n}`, permissions, createdAt: T + n };
}

function identity(n: number, externalId: string): IdentityRecord {
  return { id: `id_${pad(n)}`, workspaceId: "ws_a", externalId, ratelimits: [], createdAt: T + n };
}
