import { describe } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const valid = { namespace: "set-refused", identifier: "usr", limit: 5, duration: 60_000 };

describe("ratelimit.setOverride", () => {
  const harness = useKeyward();

  badInputCases(harness, "ratelimit.setOverride", [
    ...NOT_AN_OBJECT,
    { what: "no namespace at all", input: { identifier: "usr", limit: 5, duration: 60_000 }, locations: ["body.namespace"], detail: "namespace" },
    { what: "v1's namespaceId on v2", input: { ...valid, namespaceId: "rlns_1" }, locations: ["body.namespaceId"], detail: "namespaceId", vias: ["v2"] },
    { what: "an empty namespaceName on v1", input: { namespaceName: "", identifier: "usr", limit: 5, duration: 60_000 }, detail: "namespaceName", vias: ["v1"] },
    { what: "a missing identifier", input: { ...valid, identifier: undefined }, locations: ["body.identifier"], detail: "identifier" },
    { what: "an identifier of 513 characters", input: { ...valid, identifier: "*".repeat(513) }, locations: ["body.identifier"], detail: "identifier" },
    // Unkey requires the limit; an absent one would read as 0 and block the identifier (F10).
    { what: "a missing limit", input: { ...valid, limit: undefined }, locations: ["body.limit"], detail: "limit" },
    // Unkey v1 override identifiers have at least 3 characters (F11).
    { what: "a v1 identifier of 2 characters", input: { namespaceName: "ns1", identifier: "ab", limit: 1, duration: 60_000 }, detail: "identifier: must be at least 3 characters", vias: ["v1"] },
    { what: "a negative limit", input: { ...valid, limit: -5 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for duration", input: { ...valid, duration: "soon" }, locations: ["body.duration"], detail: "duration" },
    { what: "a duration below 1000 ms", input: { ...valid, duration: 500 }, locations: ["body.duration"], detail: "duration" },
    { what: "an unknown v2 field", input: { ...valid, bogus: 1 }, locations: ["body.bogus"], detail: "bogus", vias: ["v2"] },
    { what: "v1's async on v2", input: { ...valid, async: true }, locations: ["body.async"], detail: "async", vias: ["v2"] },
  ]);

  badRpcCases(harness, "ratelimit.setOverride", [
    { what: "a missing identifier", input: { namespace: "n", limit: "5", duration: "60000" }, field: "identifier:" },
    { what: "a duration below 1000 ms", input: { ...valid, duration: "1" }, field: "duration:" },
    { what: "a missing limit", input: { namespace: "n", identifier: "usr", duration: "60000" }, field: "limit" },
  ]);
});
