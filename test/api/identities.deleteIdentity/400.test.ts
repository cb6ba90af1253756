import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("identities.deleteIdentity", () => {
  const harness = useKeyward();

  badInputCases(harness, "identities.deleteIdentity", [
    ...NOT_AN_OBJECT,
    { what: "no identity at all", input: {}, locations: ["body.identity"], detail: "Name the identity" },
    { what: "an empty identity", input: { identity: "" }, locations: ["body.identity"], detail: "identity" },
    { what: "a number for identity", input: { identity: 7 }, locations: ["body.identity"], detail: "must be a string" },
    { what: "an identity of 256 characters", input: { identity: "x".repeat(256) }, locations: ["body.identity"], detail: "identity" },
    { what: "an unknown field", input: { identity: "u", permanent: true }, locations: ["body.permanent"], vias: ["v2"] },
    { what: "a v1 body with an empty identityId", input: { identityId: "" }, vias: ["v1"], detail: "identityId" },
    { what: "a v1 body with a numeric identityId", input: { identityId: 5 }, vias: ["v1"], detail: "identityId" },
  ]);

  badRpcCases(harness, "identities.deleteIdentity", [
    { what: "no identity at all", input: {}, field: "identity" },
    { what: "an identity of 256 characters", input: { identity: "x".repeat(256) }, field: "identity" },
  ]);
});
