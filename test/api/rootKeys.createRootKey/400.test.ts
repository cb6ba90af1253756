import { describe, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { RPC_VIAS } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";

const permissions = ["api.*.read_api"];

describe("rootKeys.createRootKey", () => {
  const harness = useKeyward();

  badInputCases(harness, "rootKeys.createRootKey", [
    ...NOT_AN_OBJECT,
    { what: "missing permissions", input: {}, locations: ["body.permissions"], detail: "at least 1 item" },
    { what: "empty permissions", input: { permissions: [] }, locations: ["body.permissions"], detail: "at least 1 item" },
    {
      what: "a string where the permissions array belongs", input: { permissions: "api.*.read_api" },
      locations: ["body.permissions"], detail: "must be an array",
    },
    {
      what: "a number among the permissions", input: { permissions: ["api.*.read_api", 5] },
      locations: ["body.permissions[1]"], detail: "must be a string",
    },
    {
      what: "a permission shorter than 3 characters", input: { permissions: ["ab"] },
      locations: ["body.permissions[0]"], detail: "permissions[0]",
    },
    {
      what: "1001 permissions", input: { permissions: Array.from({ length: 1001 }, () => "api.*.read_api") },
      locations: ["body.permissions"], detail: "permissions",
    },
    {
      what: "an action outside the catalogue", input: { permissions: ["api.*.read_api", "api.*.fly"] },
      locations: ["body.permissions[1]"], detail: "Unknown permission: api.*.fly",
    },
    {
      what: "several permissions outside the catalogue, naming each position",
      input: { permissions: ["nope.*.read_api", "api.*.read_api", "rootkey.key_123.create_root_key"] },
      locations: ["body.permissions[0]", "body.permissions[2]"], detail: "rootkey.key_123.create_root_key",
    },
    { what: "a permission with two parts", input: { permissions: ["api.read_api"] }, locations: ["body.permissions[0]"] },
    { what: "a permission with four parts", input: { permissions: ["api.*.read_api.x"] }, locations: ["body.permissions[0]"] },
    { what: "a permission in the wrong case", input: { permissions: ["API.*.READ_API"] }, locations: ["body.permissions[0]"] },
    { what: "a glob-like resource id", input: { permissions: ["api.api_*.read_api"] }, locations: ["body.permissions[0]"] },
    { what: "an empty name", input: { permissions, name: "" }, locations: ["body.name"], detail: "name" },
    { what: "a number for the name", input: { permissions, name: 5 }, locations: ["body.name"], detail: "must be a string" },
    { what: "a string for expires", input: { permissions, expires: "1893456000000" }, locations: ["body.expires"], detail: "below 2^53" },
    { what: "a float for expires", input: { permissions, expires: 1.5 }, locations: ["body.expires"], detail: "below 2^53" },
    { what: "expires beyond 2^53", input: { permissions, expires: 2 ** 53 }, locations: ["body.expires"], detail: "below 2^53" },
    { what: "expires 0", input: { permissions, expires: 0 }, locations: ["body.expires"], detail: "expires" },
    { what: "negative expires", input: { permissions, expires: -5 }, locations: ["body.expires"], detail: "expires" },
    { what: "an unknown field", input: { permissions, role: "admin" }, locations: ["body.role"], detail: "body.role" },
  ]);

  badRpcCases(harness, "rootKeys.createRootKey", [
    { what: "missing permissions", input: {}, field: "permissions:" },
    { what: "a permission shorter than 3 characters", input: { permissions: ["ab"] }, field: "permissions[0]:" },
    { what: "expires 0", input: { permissions, expires: 0 }, field: "expires:" },
    { what: "an empty name", input: { permissions, name: "" }, field: "name:" },
  ]);

  it("a permission outside the catalogue over RPC is InvalidArgument naming the permission; no key is created", async () => {
    for (const via of RPC_VIAS) {
      await expectRefusal(harness, {
        via, op: "rootKeys.createRootKey", input: { permissions: ["api.*.read_api", "api.*.fly"] },
        authorization: bearerOf(harness.keyward.rootKey), kind: "invalid", detail: "Unknown permission: api.*.fly",
      });
    }
  });
});
