import { describe, expect, it } from "vitest";
import { seedKey } from "../../support/rbac.js";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.setPermissions", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.setPermissions", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: { permissions: ["x"] }, locations: ["body.keyId"], detail: "keyId", vias: ["v2"] },
    { what: "a keyId with a dash", input: { keyId: "key-1", permissions: ["x"] }, locations: ["body.keyId"], detail: "keyId", vias: ["v2"] },
    { what: "a permission that breaks the name rules", input: { keyId: "key_1111", permissions: ["a b"] }, locations: ["body.permissions[0]"], detail: "permissions", vias: ["v2"] },
    { what: "a string for the permissions", input: { keyId: "key_1111", permissions: "x" }, locations: ["body.permissions"], detail: "permissions", vias: ["v2"] },
    { what: "an unknown field", input: { keyId: "key_1111", permissions: ["x"], apiId: "api_1" }, locations: ["body.apiId"], detail: "body.apiId", vias: ["v2"] },
    { what: "a v1 entry with neither id nor name", input: { keyId: "key_1111", permissions: [{}] }, detail: "permissions[0]", vias: ["v1"] },
    // Unkey v1 asks for at least one permission; v2 takes [] to clear them (F14).
    { what: "an empty v1 list", input: { keyId: "key_1111", permissions: [] }, detail: "permissions needs at least 1 entry", vias: ["v1"] },
    { what: "a v1 entry that breaks the name rules", input: { keyId: "key_1111", permissions: [{ name: "a b" }] }, detail: "permissions", vias: ["v1"] },
  ]);
  badRpcCases(harness, "keys.setPermissions", [
    { what: "a missing keyId", input: { permissions: ["x"] }, field: "keyId" },
    { what: "a permission that breaks the name rules", input: { keyId: "key_1111", permissions: ["a b"] }, field: "permissions" },
  ]);

  it("v1 refuses an empty list and keeps the key's permissions; v2 clears them with [] (F14)", async () => {
    const { keyId } = await seedKey(harness, { permissions: ["docs.read"] });
    const permissionsOf = async () => (await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))?.permissions;
    const v1 = await harness.rest.v1Post("keys.setPermissions", { keyId, permissions: [] }, harness.keyward.rootKey);
    expect({ status: v1.status, code: v1.body.error?.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
    expect(await permissionsOf()).toEqual(["docs.read"]);
    const v2 = await harness.rest.v2("keys.setPermissions", { keyId, permissions: [] }, harness.keyward.rootKey);
    expect(v2.status).toBe(200);
    expect(await permissionsOf()).toEqual([]);
  });
});
