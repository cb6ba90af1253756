import { describe, expect, it } from "vitest";
import { dataOf } from "../../support/key-state.js";
import { seedKey, seedRole, uniqueName } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.addRoles / setRoles / removeRoles", () => {
  const harness = useKeyward();
  const ws = () => harness.keyward.workspaceId;

  it("v1 setRoles replaces all roles from {id|name, create} entries and answers every role now connected as [{id, name}]", async () => {
    const adminId = await seedRole(harness, "admin", ["a.read"]);
    const { keyId } = await seedKey(harness, { roles: ["admin"] });
    await seedRole(harness, "viewer");
    const root = harness.keyward.rootKey;
    const set = await harness.rest.v1Post("keys.setRoles", { keyId, roles: [{ name: "viewer" }, { name: "auditor", create: true }] }, root);
    expect(set.status).toBe(200);
    const [viewer, auditor] = await Promise.all(["viewer", "auditor"].map(async (n) => (await harness.keyward.documents.roles.findByNames(ws(), [n]))[0]));
    expect(set.body).toEqual([{ id: viewer.id, name: "viewer" }, { id: auditor.id, name: "auditor" }]);
    expect((await harness.keyward.documents.keys.get(ws(), keyId))?.roles).toEqual(["viewer", "auditor"]);
    const added = await harness.rest.v1Post("keys.addRoles", { keyId, roles: [{ id: adminId }] }, root);
    expect(added.body).toEqual([{ id: viewer.id, name: "viewer" }, { id: auditor.id, name: "auditor" }, { id: adminId, name: "admin" }]);
    const removed = await harness.rest.v1Post("keys.removeRoles", { keyId, roles: [{ name: "viewer" }, { id: auditor.id }] }, root);
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: {} });
    expect((await harness.keyward.documents.keys.get(ws(), keyId))?.roles).toEqual(["admin"]);
  });

  it("v2 setRoles takes role names of any characters, as Unkey v2 (F2)", async () => {
    await seedRole(harness, "Billing Manager (EU)");
    const { keyId } = await seedKey(harness, {});
    const set = await harness.rest.v2("keys.setRoles", { keyId, roles: ["Billing Manager (EU)"] }, harness.keyward.rootKey);
    expect(set.status).toBe(200);
    expect((await harness.keyward.documents.keys.get(ws(), keyId))?.roles).toEqual(["Billing Manager (EU)"]);
  });

  it("v2 and RPC answer the key's roles with their permissions; an empty setRoles removes every role", async () => {
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
      const role = uniqueName("ops");
      const roleId = await seedRole(harness, role, ["ops.read"]);
      const { keyId } = await seedKey(harness);
      const added = dataOf("keys.addRoles", await client.call("keys.addRoles", { keyId, roles: [role] }));
      const [opsRead] = await harness.keyward.documents.permissions.findBySlugs(ws(), ["ops.read"]);
      expect(added).toEqual([{ id: roleId, name: role, permissions: [{ id: opsRead.id, name: "ops.read", slug: "ops.read" }] }]);
      expect(dataOf("keys.setRoles", await client.call("keys.setRoles", { keyId, roles: [] }))).toEqual([]);
      expect((await harness.keyward.documents.keys.get(ws(), keyId))?.roles).toEqual([]);
    }
  });
});
