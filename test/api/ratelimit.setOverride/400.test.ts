import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const valid = { namespace: "set-refused", identifier: "u", limit: 5, duration: 60_000 };

describe("ratelimit.setOverride", () => {
  const harness = useKeyward();

  badInputCases(harness, "ratelimit.setOverride", [
    ...NOT_AN_OBJECT,
    { what: "no namespace at all", input: { identifier: "u", limit: 5, duration: 60_000 }, locations: ["body.namespace"], detail: "namespace" },
    { what: "v1's namespaceId on v2", input: { ...valid, namespaceId: "rlns_1" }, locations: ["body.namespaceId"], detail: "namespaceId", vias: ["v2"] },
    { what: "an empty namespaceName on v1", input: { namespaceName: "", identifier: "u", limit: 5, duration: 60_000 }, detail: "namespaceName", vias: ["v1"] },
    { what: "a missing identifier", input: { ...valid, identifier: undefined }, locations: ["body.identifier"], detail: "identifier" },
    { what: "an identifier of 256 characters", input: { ...valid, identifier: "*".repeat(256) }, locations: ["body.identifier"], detail: "identifier" },
    { what: "a negative limit", input: { ...valid, limit: -5 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for duration", input: { ...valid, duration: "soon" }, locations: ["body.duration"], detail: "duration" },
    { what: "a duration below 1000 ms", input: { ...valid, duration: 500 }, locations: ["body.duration"], detail: "duration" },
    { what: "an unknown v2 field", input: { ...valid, bogus: 1 }, locations: ["body.bogus"], detail: "bogus", vias: ["v2"] },
    { what: "v1's async on v2", input: { ...valid, async: true }, locations: ["body.async"], detail: "async", vias: ["v2"] },
  ]);

  badRpcCases(harness, "ratelimit.setOverride", [
    { what: "a missing identifier", input: { namespace: "n", limit: "5", duration: "60000" }, field: "identifier:" },
    { what: "a duration below 1000 ms", input: { ...valid, duration: "1" }, field: "duration:" },
  ]);
});
