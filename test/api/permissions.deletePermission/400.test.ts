import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.deletePermission", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.deletePermission", [
    ...NOT_AN_OBJECT,
    { what: "a missing permission", input: {}, locations: ["body.permission"], detail: "permission", vias: ["v2"] },
    { what: "a missing permissionId", input: {}, detail: "permissionId", vias: ["v1"] },
    { what: "an array for the permission", input: { permission: ["perm_1"] }, locations: ["body.permission"], detail: "must be a string", vias: ["v2"] },
    { what: "an unknown field", input: { permission: "perm_1", force: true }, locations: ["body.force"], detail: "body.force", vias: ["v2"] },
  ]);
  badRpcCases(harness, "permissions.deletePermission", [
    { what: "an empty permission", input: { permission: "" }, field: "permission" },
  ]);
});
