import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.deleteRole", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.deleteRole", [
    ...NOT_AN_OBJECT,
    { what: "a missing role", input: {}, locations: ["body.role"], detail: "role", vias: ["v2"] },
    { what: "a missing roleId", input: {}, detail: "roleId", vias: ["v1"] },
    { what: "an unknown field", input: { role: "admin", cascade: true }, locations: ["body.cascade"], detail: "body.cascade", vias: ["v2"] },
  ]);
  badRpcCases(harness, "permissions.deleteRole", [
    { what: "an empty role", input: { role: "" }, field: "role" },
  ]);
});
