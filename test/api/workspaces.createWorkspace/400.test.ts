import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("workspaces.createWorkspace", () => {
  const harness = useKeyward();

  badInputCases(harness, "workspaces.createWorkspace", [
    ...NOT_AN_OBJECT,
    { what: "a missing name", input: {}, locations: ["body.name"], detail: "name" },
    { what: "an empty name", input: { name: "" }, locations: ["body.name"], detail: "name" },
    { what: "a number for the name", input: { name: 5 }, locations: ["body.name"], detail: "must be a string" },
    { what: "a name of 256 characters", input: { name: "w".repeat(256) }, locations: ["body.name"], detail: "at most 255" },
    { what: "an unknown field", input: { name: "acme", plan: "pro" }, locations: ["body.plan"], detail: "body.plan" },
  ]);

  badRpcCases(harness, "workspaces.createWorkspace", [
    { what: "a missing name", input: {}, field: "name:" },
    { what: "a name of 256 characters", input: { name: "w".repeat(256) }, field: "name:" },
  ]);
});
