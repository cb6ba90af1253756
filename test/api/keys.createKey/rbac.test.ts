import { describe, expect, it } from "vitest";
import { allPermissions } from "../../../src/domain/permissions.js";
import { dataOf, verifyCode } from "../../support/key-state.js";
import { seedRole, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { expectPreconditionFailed, V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.createKey and keys.updateKey with roles and permissions", () => {
  const harness = useKeyward();
  const ws = () => harness.keyward.workspaceId;
  const client = (via: Parameters<typeof viaClient>[1], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, via, rootKey);

  it("v2 and RPC create referenced roles and permissions that do not exist, and the key verifies with them", async () => {
    const apiId = await harness.seed.api({ name: uniqueName("create") });
    for (const via of V2_AND_RPC) {
      const role = uniqueName("auto-role");
      const permission = uniqueName("auto.perm");
      const { key } = dataOf("keys.createKey", await client(via).call("keys.createKey", { apiId, roles: [role], permissions: [permission] }));
      expect(await harness.keyward.documents.roles.findByNames(ws(), [role])).toHaveLength(1);
      expect(await harness.keyward.documents.permissions.findBySlugs(ws(), [permission])).toHaveLength(1);
      expect(await verifyCode(harness, key, { permissions: permission })).toBe("VALID");
    }
  });

  it("v1 refuses roles or permissions that do not exist with 412 naming them, creating nothing (as Unkey v1)", async () => {
    const apiId = await harness.seed.api({ name: uniqueName("v1") });
    await seedRole(harness, "v1-existing");
    const before = await harness.keyward.documents.keys.listByApi(ws(), apiId, { limit: 10 });
    for (const body of [{ apiId, roles: ["v1-existing", "v1-missing"] }, { apiId, permissions: ["v1.missing"] }]) {
      const outcome = await client("v1").call("keys.createKey", body);
      expectPreconditionFailed(outcome, { v1Code: "PRECONDITION_FAILED", detail: "missing, please create them first" });
    }
    expect(await harness.keyward.documents.keys.listByApi(ws(), apiId, { limit: 10 })).toEqual(before);
    expect(await harness.keyward.documents.roles.findByNames(ws(), ["v1-missing"])).toEqual([]);
    const { keyId } = await client("v1").ok("keys.createKey", { apiId, roles: ["v1-existing"] });
    const updated = await client("v1").call("keys.updateKey", { keyId, roles: ["v1-missing"] });
    expectPreconditionFailed(updated, { v1Code: "PRECONDITION_FAILED", detail: "v1-missing" });
    expect((await harness.keyward.documents.keys.get(ws(), keyId))?.roles).toEqual(["v1-existing"]);
  });

  it("assigning needs rbac.*.add_role_to_key / add_permission_to_key, and creating needs create_role / create_permission: 403 naming it, nothing created", async () => {
    const apiId = await harness.seed.api({ name: uniqueName("forbidden") });
    const without = async (permission: string) => (await harness.seed.rootKey(allPermissions().filter((p) => p !== permission))).key;
    const cases: [string, Record<string, unknown>][] = [
      ["rbac.*.add_role_to_key", { apiId, roles: ["r-x"] }],
      ["rbac.*.add_permission_to_key", { apiId, permissions: ["p.x"] }],
      ["rbac.*.create_role", { apiId, roles: ["r-new"] }],
      ["rbac.*.create_permission", { apiId, permissions: ["p.new"] }],
    ];
    for (const [permission, input] of cases) {
      const key = await without(permission);
      for (const via of V2_AND_RPC) {
        await expectRefusal(harness, { via, op: "keys.createKey", input, authorization: bearerOf(key), kind: "forbidden", detail: permission });
      }
    }
    expect(await harness.keyward.documents.keys.listByApi(ws(), apiId, { limit: 10 })).toEqual([]);
    expect(await harness.keyward.documents.roles.findByNames(ws(), ["r-x", "r-new"])).toEqual([]);
  });

  it("v2 updateKey replaces the roles and permissions it names and leaves the other list alone", async () => {
    const { keyId } = await harness.seed.key(await harness.seed.api({ name: uniqueName("update") }), { roles: ["u-one"], permissions: ["u.p"] });
    await client("v2").ok("keys.updateKey", { keyId, roles: ["u-two"] });
    expect(await harness.keyward.documents.keys.get(ws(), keyId)).toMatchObject({ roles: ["u-two"], permissions: ["u.p"] });
    await client("v2").ok("keys.updateKey", { keyId, permissions: [] });
    expect(await harness.keyward.documents.keys.get(ws(), keyId)).toMatchObject({ roles: ["u-two"], permissions: [] });
  });
});
