import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { apiKeys } from "../../support/key-state.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.deleteKeys", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.deleteKeys", [
    ...NOT_AN_OBJECT,
    { what: "a missing apiId", input: {}, locations: ["body.apiId"], detail: "apiId" },
    { what: "a null apiId", input: { apiId: null }, locations: ["body.apiId"], detail: "apiId" },
    { what: "a number for apiId", input: { apiId: 12345678 }, locations: ["body.apiId"], detail: "must be a string" },
    { what: "an apiId of 7 characters", input: { apiId: "api_123" }, locations: ["body.apiId"], detail: "at least 8" },
    { what: "an apiId with a dot", input: { apiId: "api.12345678" }, locations: ["body.apiId"], detail: "pattern" },
    { what: "a string for permanent", input: { apiId: "api_12345678", permanent: "yes" }, locations: ["body.permanent"], detail: "permanent" },
  ]);

  badRpcCases(harness, "apis.deleteKeys", [
    { what: "a missing apiId", input: {}, field: "apiId:" },
    { what: "an apiId with a dot", input: { apiId: "api.12345678" }, field: "apiId:" },
  ]);

  it("a refused request deletes nothing: v2 with an unknown field naming body.<field>, and a bad permanent on v1", async () => {
    const apiId = await harness.seed.api();
    const { keyId } = await harness.seed.key(apiId);
    harness.writes.clear();
    await expectRefusal(harness, {
      via: "v2", op: "apis.deleteKeys", input: { apiId, force: true }, authorization: bearerOf(harness.keyward.rootKey),
      kind: "invalid", locations: ["body.force"], detail: "body.force",
    });
    await expectRefusal(harness, {
      via: "v1", op: "apis.deleteKeys", input: { apiId, permanent: 1 }, authorization: bearerOf(harness.keyward.rootKey),
      kind: "invalid", detail: "permanent",
    });
    expect(harness.writes.writes).toEqual([]);
    expect((await apiKeys(harness, apiId)).map((k) => k.id)).toEqual([keyId]);
  });
});
