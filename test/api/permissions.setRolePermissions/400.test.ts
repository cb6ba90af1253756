import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.setRolePermissions", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.setRolePermissions", [
    ...NOT_AN_OBJECT,
    { what: "a missing roleId", input: { permissions: [] }, locations: ["body.roleId"], detail: "roleId" },
    { what: "a permission that cannot be a slug", input: { roleId: "admin", permissions: ["a b"] }, locations: ["body.permissions[0]"], detail: "permissions" },
    { what: "a permission list of 1001 entries", input: { roleId: "admin", permissions: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, locations: ["body.permissions"], detail: "permissions" },
  ]);
  badRpcCases(harness, "permissions.setRolePermissions", [
    { what: "an empty roleId", input: { roleId: "" }, field: "roleId" },
  ]);
});
