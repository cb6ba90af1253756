import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { expectSuccess } from "../../support/expect-outcome.js";
import { callOperation, OPERATIONS } from "../../support/operations.js";
import { bearerOf } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const apiId = "api_12345678";

describe("apis.listKeys", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.listKeys", [
    ...NOT_AN_OBJECT,
    { what: "a missing apiId", input: {}, locations: ["body.apiId"], detail: "apiId" },
    { what: "an empty apiId", input: { apiId: "" }, locations: ["body.apiId"], detail: "apiId" },
    { what: "a number for apiId", input: { apiId: 5 }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "limit 0", input: { apiId, limit: 0 }, locations: ["body.limit"], detail: "limit" },
    { what: "limit 101", input: { apiId, limit: 101 }, locations: ["body.limit"], detail: "limit" },
    { what: "limit -1", input: { apiId, limit: -1 }, locations: ["body.limit"], detail: "limit" },
    { what: "a string for limit", input: { apiId, limit: "5" }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "a float for limit", input: { apiId, limit: 1.5 }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "limit beyond 32 bits", input: { apiId, limit: 2 ** 31 }, locations: ["body.limit"], detail: "must be an integer" },
    { what: "a cursor of 1025 characters", input: { apiId, cursor: "c".repeat(1025) }, locations: ["body.cursor"], detail: "cursor" },
    { what: "an empty externalId", input: { apiId, externalId: "" }, locations: ["body.externalId"], detail: "externalId" },
    { what: "a string for decrypt", input: { apiId, decrypt: "true" }, locations: ["body.decrypt"], detail: "must be a boolean" },
    {
      what: "an unknown field", input: { apiId, unknownField: 1 }, locations: ["body.unknownField"], detail: "body.unknownField",
    },
    {
      what: "several problems at once, naming each", input: { apiId: 5, limit: "x", extra: [] },
      locations: ["body.apiId", "body.limit", "body.extra"],
    },
    { what: "a v1 query without apiId", input: "", vias: ["v1"], detail: "apiId" },
    { what: "a v1 query with limit=abc", input: `apiId=${apiId}&limit=abc`, vias: ["v1"], detail: "query.limit" },
    { what: "a v1 query with limit=1.5", input: `apiId=${apiId}&limit=1.5`, vias: ["v1"], detail: "query.limit" },
    { what: "a v1 query with limit=0", input: `apiId=${apiId}&limit=0`, vias: ["v1"], detail: "limit" },
    { what: "a v1 query with limit=101", input: `apiId=${apiId}&limit=101`, vias: ["v1"], detail: "limit" },
    { what: "a v1 query with decrypt=yes", input: `apiId=${apiId}&decrypt=yes`, vias: ["v1"], detail: "query.decrypt" },
  ]);

  badRpcCases(harness, "apis.listKeys", [
    { what: "a missing apiId", input: {}, field: "apiId:" },
    { what: "limit 0", input: { apiId, limit: 0 }, field: "limit:" },
    { what: "limit 101", input: { apiId, limit: 101 }, field: "limit:" },
    { what: "a cursor of 1025 characters", input: { apiId, cursor: "c".repeat(1025) }, field: "cursor:" },
  ]);

  it("v1 tolerates unknown query parameters", async () => {
    const realApi = await harness.seed.api();
    const data = expectSuccess(await callOperation(harness.keyward.baseUrl, "v1", OPERATIONS["apis.listKeys"], `apiId=${realApi}&limit=5&foo=1`, {
      authorization: bearerOf(harness.keyward.rootKey),
    }));
    expect(data).toEqual({ keys: [], total: 0 });
  });
});
