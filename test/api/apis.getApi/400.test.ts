import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { expectSuccess } from "../../support/expect-outcome.js";
import { callOperation, OPERATIONS } from "../../support/operations.js";
import { bearerOf } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.getApi", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.getApi", [
    ...NOT_AN_OBJECT,
    { what: "a missing apiId", input: {}, locations: ["body.apiId"], detail: "apiId" },
    { what: "a number for apiId", input: { apiId: 12345678 }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "a boolean for apiId", input: { apiId: true }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "an apiId of 7 characters", input: { apiId: "api_123" }, locations: ["body.apiId"], detail: "at least 8" },
    { what: "an apiId of 256 characters", input: { apiId: "a".repeat(256) }, locations: ["body.apiId"], detail: "at most 255" },
    { what: "an apiId with hyphens", input: { apiId: "api-1234-5678" }, locations: ["body.apiId"], detail: "pattern" },
    {
      what: "an unknown field", input: { apiId: "api_12345678", unknownField: "x" },
      locations: ["body.unknownField"], detail: "body.unknownField",
    },
    { what: "a v1 query without apiId", input: "", vias: ["v1"], detail: "apiId" },
    { what: "a v1 query with a short apiId", input: "apiId=short", vias: ["v1"], detail: "apiId" },
    { what: "a v1 query with an apiId off the pattern", input: "apiId=api-1234-5678", vias: ["v1"], detail: "apiId" },
  ]);

  badRpcCases(harness, "apis.getApi", [
    { what: "a missing apiId", input: {}, field: "apiId:" },
    { what: "an apiId of 5 characters", input: { apiId: "short" }, field: "apiId:" },
    { what: "an apiId with hyphens", input: { apiId: "has-hyphens-123" }, field: "apiId:" },
  ]);

  it("v1 tolerates unknown query parameters", async () => {
    const apiId = await harness.seed.api({ name: "tolerated" });
    const data = expectSuccess(await callOperation(harness.keyward.baseUrl, "v1", OPERATIONS["apis.getApi"], `apiId=${apiId}&foo=bar`, {
      authorization: bearerOf(harness.keyward.rootKey),
    }));
    expect(data).toEqual({ id: apiId, name: "tolerated", workspaceId: harness.keyward.workspaceId });
  });
});
