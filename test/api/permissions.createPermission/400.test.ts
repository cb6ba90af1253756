import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("permissions.createPermission", () => {
  const harness = useKeyward();
  badInputCases(harness, "permissions.createPermission", [
    ...NOT_AN_OBJECT,
    { what: "a missing name", input: { slug: "docs.read" }, locations: ["body.name"], detail: "name" },
    { what: "a missing slug (v2 asks for it)", input: { name: "docs.read" }, locations: ["body.slug"], detail: "slug", vias: ["v2"] },
    { what: "a slug with a space", input: { slug: "docs read", name: "docs" }, locations: ["body.slug"], detail: "slug" },
    { what: "a slug of 129 characters", input: { slug: "a".repeat(129), name: "docs" }, locations: ["body.slug"], detail: "slug" },
    { what: "a name of 513 characters", input: { slug: "okay", name: "n".repeat(513) }, locations: ["body.name"], detail: "name" },
    { what: "a description of 513 characters", input: { slug: "okay", name: "docs", description: "d".repeat(513) }, locations: ["body.description"], detail: "description" },
    { what: "a number for the name", input: { slug: "okay", name: 5 }, locations: ["body.name"], detail: "must be a string" },
    { what: "an unknown field", input: { slug: "ok", name: "ok", roles: [] }, locations: ["body.roles"], detail: "body.roles", vias: ["v2"] },
    { what: "a v1 name that cannot be a slug", input: { name: "docs read" }, detail: "name", vias: ["v1"] },
    { what: "a v1 name of 2 characters (Unkey v1 asks for 3)", input: { name: "ab" }, detail: "name: must be at least 3 characters", vias: ["v1"] },
    // Unkey v1: slug 3+ characters, description "" or 3-256 characters (F15).
    { what: "a v1 slug of 2 characters", input: { name: "abc", slug: "ab" }, detail: "slug: must be at least 3 characters", vias: ["v1"] },
    { what: "a v1 description of 1 character", input: { name: "abc", description: "x" }, detail: "description: must be empty or 3-256", vias: ["v1"] },
  ]);
  badRpcCases(harness, "permissions.createPermission", [
    { what: "a missing name", input: { slug: "ok" }, field: "name" },
    { what: "a slug with a space", input: { slug: "a b", name: "x" }, field: "slug" },
  ]);
});
