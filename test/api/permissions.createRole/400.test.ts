import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.createRole", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.createRole", [
    ...NOT_AN_OBJECT,
    { what: "a missing name", input: {}, locations: ["body.name"], detail: "name" },
    { what: "a name of 129 characters", input: { name: "r".repeat(129) }, locations: ["body.name"], detail: "name" },
    { what: "a permission of 129 characters", input: { name: "okay", permissions: ["p".repeat(129)] }, locations: ["body.permissions[0]"], detail: "permissions", vias: ["v2"] },
    // Unkey v1 descriptions are "" or 3-256 characters (F15).
    { what: "a v1 description of 1 character", input: { name: "abc", description: "x" }, detail: "description: must be empty or 3-256", vias: ["v1"] },
    { what: "a v1 description of 257 characters", input: { name: "abc", description: "d".repeat(257) }, detail: "description: must be empty or 3-256", vias: ["v1"] },
    { what: "a v1 name of 2 characters (Unkey v1 asks for 3)", input: { name: "ab" }, detail: "name: must be at least 3 characters", vias: ["v1"] },
    { what: "a permission that cannot be a slug", input: { name: "ok", permissions: ["a b"] }, locations: ["body.permissions[0]"], detail: "permissions", vias: ["v2"] },
    { what: "a string for the permissions", input: { name: "ok", permissions: "p1" }, locations: ["body.permissions"], detail: "permissions", vias: ["v2"] },
    { what: "an unknown field", input: { name: "ok", slug: "x" }, locations: ["body.slug"], detail: "body.slug", vias: ["v2"] },
  ]);
  badRpcCases(harness, "permissions.createRole", [
    { what: "an empty name", input: { name: "" }, field: "name" },
    { what: "a bad permission slug", input: { name: "ok", permissions: ["a b"] }, field: "permissions" },
  ]);
});
