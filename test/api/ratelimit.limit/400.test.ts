import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { okVia } from "../../support/ratelimit.js";
import { useKeyward } from "../../support/use-keyward.js";

const valid = { namespace: "refused", identifier: "u", limit: 5, duration: 60_000 };

describe("ratelimit.limit", () => {
  const harness = useKeyward();

  badInputCases(harness, "ratelimit.limit", [
    ...NOT_AN_OBJECT,
    { what: "a missing identifier", input: { ...valid, identifier: undefined }, locations: ["body.identifier"], detail: "identifier" },
    { what: "an empty identifier", input: { ...valid, identifier: "" }, locations: ["body.identifier"], detail: "identifier" },
    { what: "an identifier of 513 characters", input: { ...valid, identifier: "x".repeat(513) }, locations: ["body.identifier"], detail: "at most 512" },
    { what: "a number for identifier", input: { ...valid, identifier: 7 }, locations: ["body.identifier"], detail: "must be a string" },
    { what: "an empty namespace", input: { ...valid, namespace: "" }, locations: ["body.namespace"], detail: "namespace" },
    { what: "a namespace of 513 characters", input: { ...valid, namespace: "n".repeat(513) }, locations: ["body.namespace"], detail: "namespace" },
    { what: "a negative limit", input: { ...valid, limit: -1 }, locations: ["body.limit"], detail: "limit" },
    { what: "a limit of 0", input: { ...valid, limit: 0 }, locations: ["body.limit"], detail: "limit: must be greater than or equal to 1" },
    { what: "a fractional limit", input: { ...valid, limit: 1.5 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for limit", input: { ...valid, limit: "ten" }, locations: ["body.limit"], detail: "limit" },
    { what: "a duration below 1000 ms", input: { ...valid, duration: 999 }, locations: ["body.duration"], detail: "duration" },
    { what: "a missing duration", input: { ...valid, duration: undefined }, locations: ["body.duration"], detail: "duration" },
    { what: "a negative cost", input: { ...valid, cost: -1 }, locations: ["body.cost"], detail: "cost" },
    { what: "a cost above 2^53-1", input: { ...valid, cost: 2 ** 53 }, locations: ["body.cost"], detail: "cost" },
    { what: "v1's async on v2", input: { ...valid, async: true }, locations: ["body.async"], detail: "async", vias: ["v2"] },
    { what: "an unknown v2 field", input: { ...valid, unknownField: 1 }, locations: ["body.unknownField"], detail: "unknownField", vias: ["v2"] },
  ]);

  badRpcCases(harness, "ratelimit.limit", [
    { what: "a missing identifier", input: { namespace: "n", limit: "5", duration: "60000" }, field: "identifier:" },
    { what: "a missing namespace", input: { identifier: "u", limit: "5", duration: "60000" }, field: "namespace:" },
    { what: "a duration below 1000 ms", input: { ...valid, duration: "10" }, field: "duration:" },
    { what: "a negative cost", input: { ...valid, cost: "-2" }, field: "cost:" },
  ]);

  it("a refused call creates no namespace and counts nothing", async () => {
    await harness.rest.v2("ratelimit.limit", { ...valid, namespace: "never-created", duration: 5 }, harness.keyward.rootKey);
    expect(await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "never-created")).toBeUndefined();
    await harness.rest.v2("ratelimit.limit", { ...valid, identifier: "kept", cost: -1 }, harness.keyward.rootKey);
    await harness.rest.v1Post("ratelimits.limit", { ...valid, identifier: "kept", limit: "x" }, harness.keyward.rootKey);
    expect(await okVia(harness, "v2", "ratelimit.limit", { ...valid, identifier: "kept", cost: 0 })).toMatchObject({ remaining: 5 });
  });
});
