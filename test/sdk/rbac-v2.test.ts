import { Unkey } from "unkey-v2";
import { ConflictErrorResponse, ForbiddenErrorResponse, NotFoundErrorResponse, BadRequestErrorResponse } from "unkey-v2/models/errors";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";

/** Runs `call`, which must throw; returns what it threw. */
async function thrown(call: () => Promise<unknown>): Promise<any> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe("@unkey/api 2.5 (v2 SDK) permissions, roles and RBAC verification against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });

  it("permissions.*, keys.*Roles and keys.*Permissions parse, and verifyKey evaluates query strings over the union of roles", async () => {
    const unkey = sdk();
    const { permissionId } = (await unkey.permissions.createPermission({ slug: "p1", name: "Permission one", description: "first" })).data;
    expect((await unkey.permissions.getPermission({ permission: "p1" })).data).toEqual({ id: permissionId, name: "Permission one", slug: "p1", description: "first" });
    const roleA = (await unkey.permissions.createRole({ name: "A", permissions: ["p1", "p2", "p3"] })).data.roleId;
    harness.clock.advance(1);
    const roleB = (await unkey.permissions.createRole({ name: "B", description: "bee", permissions: ["p1", "p4", "p5"] })).data.roleId;
    const gotB = (await unkey.permissions.getRole({ role: roleB })).data;
    expect(gotB).toMatchObject({ id: roleB, name: "B", description: "bee" });
    expect(gotB.permissions?.map((p) => p.slug)).toEqual(["p1", "p4", "p5"]);
    const page = await unkey.permissions.listRoles({ limit: 1 });
    expect(page.result.data.map((r) => r.id)).toEqual([roleA]);
    expect(page.result.pagination?.hasMore).toBe(true);
    const perms = await unkey.permissions.listPermissions({ limit: 100 });
    expect(perms.result.data.map((p) => p.slug).sort()).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    expect((await unkey.permissions.listPermissions({ search: "ONE" })).result.data.map((p) => p.id)).toEqual([permissionId]);
    expect((await unkey.permissions.listRoles({ search: "bee" })).result.data.map((r) => r.id)).toEqual([roleB]);

    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-rbac" })).data;
    const { keyId, key } = (await unkey.keys.createKey({ apiId, roles: ["A"] })).data;
    const code = async (permissions: string) => (await unkey.keys.verifyKey({ key, permissions })).data;
    expect((await code("p1 AND (p4 OR p3)")).code).toBe("VALID");
    expect((await code("p1 and p4")).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await unkey.keys.addRoles({ keyId, roles: ["B"] })).data.map((r) => r.name)).toEqual(["A", "B"]);
    expect(await code("p4 AND p2 OR p9")).toMatchObject({ code: "VALID", roles: ["A", "B"], permissions: ["p1", "p2", "p3", "p4", "p5"] });
    expect((await unkey.keys.setRoles({ keyId, roles: ["B"] })).data.map((r) => r.id)).toEqual([roleB]);
    expect((await code("p2")).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect((await unkey.keys.removeRoles({ keyId, roles: ["B"] })).data).toEqual([]);

    expect((await unkey.keys.addPermissions({ keyId, permissions: ["direct"] })).data.map((p) => p.slug)).toEqual(["direct"]);
    expect((await unkey.keys.setPermissions({ keyId, permissions: ["p1", "direct"] })).data.map((p) => p.slug)).toEqual(["p1", "direct"]);
    expect((await unkey.keys.removePermissions({ keyId, permissions: ["p1"] })).data.map((p) => p.slug)).toEqual(["direct"]);
    expect((await unkey.keys.getKey({ keyId })).data).toMatchObject({ permissions: ["direct"], roles: [] });

    await unkey.keys.setRoles({ keyId, roles: ["A"] });
    await unkey.permissions.deletePermission({ permission: permissionId });
    expect(await code("p1")).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", permissions: ["direct", "p2", "p3"] });
    await unkey.permissions.deleteRole({ role: "A" });
    expect(await code("p2")).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", roles: [], permissions: ["direct"] });
    expect((await unkey.permissions.setRolePermissions({ roleId: "B", permissions: ["p4"] })).data.map((p) => p.slug)).toEqual(["p4"]);
  });

  it("refusals are typed: 409 duplicate, 404 another workspace's role, 403 naming the rbac permission, 400 naming the query position", async () => {
    const unkey = sdk();
    await unkey.permissions.createPermission({ slug: "dup", name: "dup" });
    const conflict = await thrown(() => unkey.permissions.createPermission({ slug: "dup", name: "other" }));
    expect(conflict).toBeInstanceOf(ConflictErrorResponse);
    const other = await harness.seed.workspace("sdk-v2-rbac-other");
    const theirs = (await sdk(other.rootKey.key).permissions.createRole({ name: "theirs" })).data.roleId;
    expect(await thrown(() => unkey.permissions.getRole({ role: theirs }))).toBeInstanceOf(NotFoundErrorResponse);
    const { key: limited } = await harness.seed.rootKey(["rbac.*.add_role_to_key"]);
    const { apiId } = (await unkey.apis.createApi({ name: "sdk-v2-rbac-refusals" })).data;
    const { keyId, key } = (await unkey.keys.createKey({ apiId })).data;
    const forbidden = await thrown(() => sdk(limited).keys.addRoles({ keyId, roles: ["not-yet"] }));
    expect(forbidden).toBeInstanceOf(ForbiddenErrorResponse);
    expect(forbidden.error.detail).toContain("rbac.*.create_role");
    const bad = await thrown(() => unkey.keys.verifyKey({ key, permissions: "a AND (b OR" }));
    expect(bad).toBeInstanceOf(BadRequestErrorResponse);
    expect(bad.error.detail).toMatch(/position \d+/);
  });
});
