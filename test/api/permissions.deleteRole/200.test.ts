import { describe, expect, it } from "vitest";
import type { Via } from "../../support/operations.js";
import { seedKey, seedRole, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("permissions.deleteRole", () => {
  const harness = useKeyward();
  const input = (via: Via, ref: string) => (via === "v1" ? { roleId: ref } : { role: ref });

  it("deletes a role by id (or, beyond v1, by name) and removes it from every key; a second delete is 404", async () => {
    for (const via of ALL_VIAS) {
      const name = uniqueName("gone");
      const roleId = await seedRole(harness, name, ["x.read"]);
      const { keyId } = await seedKey(harness, { roles: [name, "stays"] });
      const ref = via === "v1" || via === "grpc" ? roleId : name;
      expect(await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).ok("permissions.deleteRole", input(via, ref))).toBeDefined();
      expect(await harness.keyward.documents.roles.get(harness.keyward.workspaceId, roleId)).toBeUndefined();
      expect((await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))?.roles).toEqual(["stays"]);
      await expectRefusal(harness, { via, op: "permissions.deleteRole", input: input(via, ref), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: ref });
    }
  });

  it("another workspace's role is 404 and stays", async () => {
    const other = await harness.seed.workspace(uniqueName("ws"));
    const theirs = (await harness.rest.v2("permissions.createRole", { name: "admin" }, other.rootKey.key)).body.data.roleId;
    for (const via of ALL_VIAS) {
      await expectRefusal(harness, { via, op: "permissions.deleteRole", input: input(via, theirs), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: theirs });
    }
    expect(await harness.keyward.documents.roles.get(other.workspaceId, theirs)).toBeDefined();
  });
});
