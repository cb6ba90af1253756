import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { seedRole, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("permissions.setRolePermissions", () => {
  const harness = useKeyward();

  it("replaces a role's permissions (by role id or name), creating missing ones, and answers the new list", async () => {
    for (const name of V2_AND_RPC) {
      const role = uniqueName("role");
      const roleId = await seedRole(harness, role, ["keep", "drop"]);
      const fresh = uniqueName("fresh");
      const data = dataOf("permissions.setRolePermissions", await viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey)
        .call("permissions.setRolePermissions", { roleId: name === "v2" ? role : roleId, permissions: ["keep", fresh] }));
      expect(data.map((p: { slug: string }) => p.slug)).toEqual(["keep", fresh]);
      expect((await harness.keyward.documents.roles.get(harness.keyward.workspaceId, roleId))?.permissions).toEqual(["keep", fresh]);
    }
  });

  it("removing a permission needs rbac.*.remove_permission_from_role: 403 naming it, nothing changed or created", async () => {
    const role = uniqueName("role");
    await seedRole(harness, role, ["p1"]);
    const { key } = await harness.seed.rootKey(["rbac.*.add_permission_to_role", "rbac.*.create_permission"]);
    for (const via of V2_AND_RPC) {
      await expectRefusal(harness, {
        via, op: "permissions.setRolePermissions", input: { roleId: role, permissions: ["brand.new"] }, authorization: bearerOf(key),
        kind: "forbidden", detail: "rbac.*.remove_permission_from_role",
      });
    }
    expect(await harness.keyward.documents.permissions.findBySlugs(harness.keyward.workspaceId, ["brand.new"])).toEqual([]);
  });

  it("another workspace's role is 404", async () => {
    const other = await harness.seed.workspace(uniqueName("ws"));
    const theirs = (await harness.rest.v2("permissions.createRole", { name: "r" }, other.rootKey.key)).body.data.roleId;
    for (const via of V2_AND_RPC) {
      await expectRefusal(harness, { via, op: "permissions.setRolePermissions", input: { roleId: theirs, permissions: [] }, authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: theirs });
    }
  });
});
