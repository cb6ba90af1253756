import { Unkey } from "unkey-v1";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";

describe("@unkey/api 0.38 (v1 SDK) permissions, roles and RBAC verification against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });

  it("permissions.*, keys.*Roles and keys.*Permissions parse, and verify evaluates and/or queries over roles", async () => {
    const unkey = sdk();
    const p1 = (await unkey.permissions.createPermission({ name: "perm1", description: "first" })).result!.permissionId;
    expect((await unkey.permissions.getPermission({ permissionId: p1 })).result).toEqual({ id: p1, name: "perm1", slug: "perm1", description: "first" });
    const roleA = (await unkey.permissions.createRole({ name: "alpha", description: "role a" })).result!.roleId;
    expect((await unkey.permissions.getRole({ roleId: roleA })).result).toEqual({ id: roleA, name: "alpha", description: "role a" });
    await unkey.permissions.createRole({ name: "beta" });
    // v1 has no role-permission edit: v2 gives role A p1,p2,p3 and role B p1,p4,p5.
    for (const [role, permissions] of [["alpha", ["perm1", "perm2", "perm3"]], ["beta", ["perm1", "perm4", "perm5"]]] as const) {
      const response = await harness.rest.v2("permissions.setRolePermissions", { roleId: role, permissions }, harness.keyward.rootKey);
      expect(response.status).toBe(200);
    }
    const roles = (await unkey.permissions.listRoles()).result!.sort((a, b) => a.name.localeCompare(b.name));
    expect(roles).toEqual([{ id: roleA, name: "alpha", description: "role a" }, { id: expect.stringMatching(/^role_/), name: "beta" }]);
    expect((await unkey.permissions.listPermissions()).result?.map((p) => p.slug).sort()).toEqual(["perm1", "perm2", "perm3", "perm4", "perm5"]);

    const apiId = (await unkey.apis.create({ name: "sdk-v1-rbac" })).result!.apiId;
    const { keyId, key } = (await unkey.keys.create({ apiId })).result!;
    const set = await unkey.keys.setRoles({ keyId, roles: [{ id: roleA }] });
    expect(set.result).toEqual([{ id: roleA, name: "alpha" }]);
    const verify = async (permissions: unknown) =>
      (await unkey.keys.verify({ key, apiId, authorization: { permissions: permissions as never } })).result!;
    expect((await verify({ and: ["perm1", { or: ["perm4", "perm3"] }] })).code).toBe("VALID");
    expect((await verify({ and: ["perm1", "perm4"] })).code).toBe("INSUFFICIENT_PERMISSIONS");
    const added = await unkey.keys.addRoles({ keyId, roles: [{ name: "beta" }] });
    expect(added.result?.map((r) => r.name)).toEqual(["alpha", "beta"]);
    const both = await verify({ and: ["perm1", "perm4", { or: ["perm2", "perm9"] }] });
    expect(both).toMatchObject({ valid: true, code: "VALID", roles: ["alpha", "beta"], permissions: ["perm1", "perm2", "perm3", "perm4", "perm5"] });
    // setRoles replaces every role.
    await unkey.keys.setRoles({ keyId, roles: [{ name: "beta" }] });
    expect((await verify("perm2")).code).toBe("INSUFFICIENT_PERMISSIONS");
    expect(await unkey.keys.removeRoles({ keyId, roles: [{ name: "beta" }] })).toMatchObject({ result: {} });

    const direct = await unkey.keys.addPermissions({ keyId, permissions: [{ id: p1 }, { name: "direct", create: true }] });
    expect(direct.result?.map((p) => p.name)).toEqual(["perm1", "direct"]);
    expect((await unkey.keys.setPermissions({ keyId, permissions: [{ name: "direct" }] })).result?.map((p) => p.name)).toEqual(["direct"]);
    expect((await verify({ or: ["perm1", "direct"] })).code).toBe("VALID");
    expect(await unkey.keys.removePermissions({ keyId, permissions: [{ slug: "direct" }] })).toMatchObject({ result: {} });
    expect((await verify("direct")).code).toBe("INSUFFICIENT_PERMISSIONS");

    // Deleting a permission takes it from every role: the next verification sees it.
    await unkey.keys.setRoles({ keyId, roles: [{ name: "alpha" }] });
    expect((await unkey.permissions.deletePermission({ permissionId: p1 })).error).toBeUndefined();
    expect(await verify("perm1")).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", permissions: ["perm2", "perm3"] });
    expect((await unkey.permissions.deleteRole({ roleId: roleA })).error).toBeUndefined();
    expect(await verify("perm2")).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", roles: [], permissions: [] });
  });

  it("refusals come back as v1 errors: 404 for another workspace's role, 403 naming a missing rbac permission", async () => {
    const other = await harness.seed.workspace("sdk-v1-rbac-other");
    const theirs = (await sdk(other.rootKey.key).permissions.createRole({ name: "theirs" })).result!.roleId;
    expect((await sdk().permissions.getRole({ roleId: theirs })).error).toMatchObject({ code: "NOT_FOUND" });
    const { key } = await harness.seed.rootKey(["rbac.*.read_role"]);
    const refused = await sdk(key).permissions.createRole({ name: "nope" });
    expect(refused.error).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", message: expect.stringContaining("rbac.*.create_role") });
  });
});
