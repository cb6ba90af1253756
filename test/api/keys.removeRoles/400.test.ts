import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.removeRoles", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.removeRoles", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: { roles: ["x"] }, locations: ["body.keyId"], detail: "keyId", vias: ["v2"] },
    { what: "a keyId with a dash", input: { keyId: "key-1", roles: ["x"] }, locations: ["body.keyId"], detail: "keyId", vias: ["v2"] },
    { what: "a role name of 129 characters", input: { keyId: "key_1111", roles: ["r".repeat(129)] }, locations: ["body.roles[0]"], detail: "roles", vias: ["v2"] },
    { what: "a string for the roles", input: { keyId: "key_1111", roles: "x" }, locations: ["body.roles"], detail: "roles", vias: ["v2"] },
    { what: "an unknown field", input: { keyId: "key_1111", roles: ["x"], apiId: "api_1" }, locations: ["body.apiId"], detail: "body.apiId", vias: ["v2"] },
    { what: "a v1 entry with neither id nor name", input: { keyId: "key_1111", roles: [{}] }, detail: "roles[0]", vias: ["v1"] },
    { what: "a v1 entry of 129 characters", input: { keyId: "key_1111", roles: [{ name: "r".repeat(129) }] }, detail: "roles", vias: ["v1"] },
    { what: "no roles at all", input: { keyId: "key_1111", roles: [] }, locations: ["body.roles"], detail: "roles", vias: ["v2"] },
    { what: "a v1 empty list", input: { keyId: "key_1111", roles: [] }, detail: "roles", vias: ["v1"] },
  ]);
  badRpcCases(harness, "keys.removeRoles", [
    { what: "a missing keyId", input: { roles: ["x"] }, field: "keyId" },
    { what: "a role name of 129 characters", input: { keyId: "key_1111", roles: ["r".repeat(129)] }, field: "roles" },
  ]);
});
