import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.listIdentities", () => {
  const harness = useKeyward();

  badInputCases(harness, "identities.listIdentities", [
    ...NOT_AN_OBJECT,
    { what: "a limit of 0", input: { limit: 0 }, locations: ["body.limit"], detail: "limit" },
    { what: "a limit of 101", input: { limit: 101 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for limit", input: { limit: "ten" }, locations: ["body.limit"], detail: "limit" },
    { what: "a cursor this service never issued", input: { cursor: "bm90IGFuIGlk!" }, locations: ["body.cursor"], detail: "cursor" },
    { what: "a number for cursor", input: { cursor: 5 }, locations: ["body.cursor"], detail: "must be a string" },
    { what: "an unknown field", input: { limit: 5, environment: "x" }, locations: ["body.environment"] },
    { what: "a search of 257 characters", input: { search: "x".repeat(257) }, locations: ["body.search"], detail: "search" },
    { what: "a v1 query with limit=0", input: "limit=0", vias: ["v1"], detail: "limit" },
    { what: "a v1 query with limit=101", input: "limit=101", vias: ["v1"], detail: "limit" },
    { what: "a v1 query with a non-numeric limit", input: "limit=ten", vias: ["v1"], detail: "limit" },
    { what: "a v1 query with a foreign cursor", input: "cursor=%25%25%25", vias: ["v1"], detail: "cursor" },
  ]);

  badRpcCases(harness, "identities.listIdentities", [
    { what: "a limit of 0", input: { limit: 0 }, field: "limit" },
    { what: "a limit of 101", input: { limit: 101 }, field: "limit" },
    { what: "a foreign cursor", input: { cursor: "garbage!" }, field: "cursor" },
  ]);
});
