import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.getRole", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.getRole", [
    ...NOT_AN_OBJECT,
    { what: "a missing role", input: {}, locations: ["body.role"], detail: "role" },
    { what: "a number for the role", input: { role: 1 }, locations: ["body.role"], detail: "must be a string" },
    { what: "a query without roleId", input: {}, detail: "roleId", vias: ["v1"] },
  ]);
  badRpcCases(harness, "permissions.getRole", [
    { what: "an empty role", input: { role: "" }, field: "role" },
  ]);
});
