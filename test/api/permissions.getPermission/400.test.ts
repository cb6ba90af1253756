import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.getPermission", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.getPermission", [
    ...NOT_AN_OBJECT,
    { what: "a missing permission", input: {}, locations: ["body.permission"], detail: "permission" },
    { what: "a number for the permission", input: { permission: 5 }, locations: ["body.permission"], detail: "must be a string" },
    { what: "an unknown field", input: { permission: "perm_1", slug: "x" }, locations: ["body.slug"], detail: "body.slug" },
    { what: "a query without permissionId", input: {}, detail: "permissionId", vias: ["v1"] },
  ]);
  badRpcCases(harness, "permissions.getPermission", [
    { what: "an empty permission", input: { permission: "" }, field: "permission" },
  ]);
});
