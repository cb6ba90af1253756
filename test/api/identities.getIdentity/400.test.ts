import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.getIdentity", () => {
  const harness = useKeyward();

  badInputCases(harness, "identities.getIdentity", [
    ...NOT_AN_OBJECT,
    { what: "no identity at all", input: {}, locations: ["body.identity"], detail: "Name the identity" },
    { what: "an empty identity", input: { identity: "" }, locations: ["body.identity"], detail: "identity" },
    { what: "a number for identity", input: { identity: 42 }, locations: ["body.identity"], detail: "must be a string" },
    { what: "an identity of 256 characters", input: { identity: "x".repeat(256) }, locations: ["body.identity"], detail: "at most 255" },
    { what: "an unknown field", input: { identity: "u", search: "x" }, locations: ["body.search"] },
    { what: "a v1 query naming no identity", input: "", vias: ["v1"], detail: "Name the identity" },
    { what: "a v1 query with an empty identityId", input: "identityId=", vias: ["v1"], detail: "identityId" },
    { what: "a v1 query with an externalId of 256 characters", input: `externalId=${"x".repeat(256)}`, vias: ["v1"], detail: "externalId" },
  ]);

  badRpcCases(harness, "identities.getIdentity", [
    { what: "no identity at all", input: {}, field: "identity" },
    { what: "an identity of 256 characters", input: { identity: "x".repeat(256) }, field: "identity" },
    { what: "an empty externalId", input: { externalId: "" }, field: "externalId" },
  ]);
});
