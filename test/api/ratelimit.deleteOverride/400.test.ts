import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.deleteOverride", () => {
  const harness = useKeyward();

  badInputCases(harness, "ratelimit.deleteOverride", [
    ...NOT_AN_OBJECT,
    { what: "no namespace", input: { identifier: "u" }, locations: ["body.namespace"], detail: "namespace" },
    { what: "a missing identifier", input: { namespace: "n" }, locations: ["body.identifier"], detail: "identifier" },
    { what: "an empty identifier", input: { namespace: "n", identifier: "" }, locations: ["body.identifier"], detail: "identifier" },
    { what: "a number for identifier", input: { namespace: "n", identifier: 1 }, locations: ["body.identifier"], detail: "must be a string" },
    { what: "v1's namespaceId on v2", input: { namespaceId: "rlns_1", identifier: "u" }, locations: ["body.namespaceId"], detail: "namespaceId", vias: ["v2"] },
    { what: "an unknown v2 field", input: { namespace: "n", identifier: "u", x: 1 }, locations: ["body.x"], detail: "body.x", vias: ["v2"] },
  ]);

  badRpcCases(harness, "ratelimit.deleteOverride", [
    { what: "a missing identifier", input: { namespace: "n" }, field: "identifier:" },
  ]);
});
