import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { expectSuccess } from "../../support/expect-outcome.js";
import { callOperation, OPERATIONS } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.deleteApi"];

describe("apis.deleteApi", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.deleteApi", [
    ...NOT_AN_OBJECT,
    { what: "a missing apiId", input: {}, locations: ["body.apiId"], detail: "apiId" },
    { what: "a null apiId", input: { apiId: null }, locations: ["body.apiId"], detail: "apiId" },
    { what: "a number for apiId", input: { apiId: 12345678 }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "an object for apiId", input: { apiId: { id: "api_12345678" } }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "an apiId of 7 characters", input: { apiId: "api_123" }, locations: ["body.apiId"], detail: "at least 8" },
    { what: "an apiId of 256 characters", input: { apiId: "a".repeat(256) }, locations: ["body.apiId"], detail: "at most 255" },
    { what: "an apiId with a dot", input: { apiId: "api.12345678" }, locations: ["body.apiId"], detail: "pattern" },
  ]);

  badRpcCases(harness, "apis.deleteApi", [
    { what: "a missing apiId", input: {}, field: "apiId:" },
    { what: "an apiId of 5 characters", input: { apiId: "short" }, field: "apiId:" },
    { what: "an apiId with a dot", input: { apiId: "api.12345678" }, field: "apiId:" },
  ]);

  it("v2 refuses an unknown field naming body.<field>, and the api it names is not deleted", async () => {
    const apiId = await harness.seed.api();
    await expectRefusal(harness, {
      via: "v2", op: "apis.deleteApi", input: { apiId, force: true }, authorization: bearerOf(harness.keyward.rootKey),
      kind: "invalid", locations: ["body.force"], detail: "body.force",
    });
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ id: apiId });
  });

  it("v1 tolerates unknown fields: the api is deleted", async () => {
    const apiId = await harness.seed.api();
    expectSuccess(await callOperation(harness.keyward.baseUrl, "v1", op, { apiId, force: true }, {
      authorization: bearerOf(harness.keyward.rootKey),
    }));
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();
  });
});
