import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.getOverride", () => {
  const harness = useKeyward();

  badInputCases(harness, "ratelimit.getOverride", [
    ...NOT_AN_OBJECT,
    { what: "no namespace", input: { identifier: "u" }, locations: ["body.namespace"], detail: "namespace" },
    { what: "a missing identifier", input: { namespace: "n" }, locations: ["body.identifier"], detail: "identifier" },
    { what: "an identifier of 513 characters", input: { namespace: "n", identifier: "u".repeat(513) }, locations: ["body.identifier"], detail: "identifier" },
    { what: "v1's namespaceName on v2", input: { namespace: "n", namespaceName: "n", identifier: "u" }, locations: ["body.namespaceName"], detail: "namespaceName" },
    { what: "an unknown field", input: { namespace: "n", identifier: "u", x: 1 }, locations: ["body.x"], detail: "body.x" },
    { what: "a v1 query without identifier", input: "namespaceName=n", vias: ["v1"], detail: "identifier" },
    { what: "a v1 query without a namespace", input: "identifier=u", vias: ["v1"], detail: "namespace" },
    { what: "a v1 query with an empty namespaceId", input: "namespaceId=&identifier=u", vias: ["v1"], detail: "namespaceId" },
  ]);

  badRpcCases(harness, "ratelimit.getOverride", [
    { what: "a missing identifier", input: { namespace: "n" }, field: "identifier:" },
  ]);
});
