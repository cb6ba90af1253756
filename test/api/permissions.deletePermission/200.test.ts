import { describe, expect, it } from "vitest";
import type { Via } from "../../support/operations.js";
import { seedKey, seedPermission, seedRole, uniqueName } from "../../support/rbac.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("permissions.deletePermission", () => {
  const harness = useKeyward();
  const input = (via: Via, ref: string) => (via === "v1" ? { permissionId: ref } : { permission: ref });
  const store = () => harness.keyward.documents;

  it("deletes a permission by id (or, beyond v1, by slug) and removes it from every key and role; a second delete is 404", async () => {
    for (const via of ALL_VIAS) {
      const slug = uniqueName("gone");
      const permissionId = await seedPermission(harness, slug);
      const roleId = await seedRole(harness, uniqueName("holder"), [slug, "kept"]);
      const { keyId } = await seedKey(harness, { permissions: ["kept", slug] });
      const ref = via === "v1" || via === "connect" ? permissionId : slug;
      await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).ok("permissions.deletePermission", input(via, ref));
      const ws = harness.keyward.workspaceId;
      expect(await store().permissions.get(ws, permissionId)).toBeUndefined();
      expect((await store().roles.get(ws, roleId))?.permissions).toEqual(["kept"]);
      expect((await store().keys.get(ws, keyId))?.permissions).toEqual(["kept"]);
      await expectRefusal(harness, { via, op: "permissions.deletePermission", input: input(via, ref), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: ref });
    }
  });

  it("another workspace's permission is 404 and stays", async () => {
    const other = await harness.seed.workspace(uniqueName("ws"));
    const theirs = (await harness.rest.v2("permissions.createPermission", { slug: "x", name: "x" }, other.rootKey.key)).body.data.permissionId;
    for (const via of ALL_VIAS) {
      await expectRefusal(harness, { via, op: "permissions.deletePermission", input: input(via, theirs), authorization: bearerOf(harness.keyward.rootKey), kind: "not_found", detail: theirs });
    }
    expect(await store().permissions.get(other.workspaceId, theirs)).toBeDefined();
  });
});
