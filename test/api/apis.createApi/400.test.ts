import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { callOperation, OPERATIONS } from "../../support/operations.js";
import { bearerOf } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.createApi", () => {
  const harness = useKeyward();

  badInputCases(harness, "apis.createApi", [
    ...NOT_AN_OBJECT,
    { what: "a missing name", input: {}, locations: ["body.name"], detail: "name" },
    { what: "a null name (null means unset)", input: { name: null }, locations: ["body.name"], detail: "name" },
    { what: "a number for the name", input: { name: 5 }, locations: ["body.name"], detail: "must be a string" },
    { what: "an array for the name", input: { name: ["abc"] }, locations: ["body.name"], detail: "must be a string" },
    { what: "a name of 2 characters", input: { name: "ab" }, locations: ["body.name"], detail: "at least 3 characters" },
    { what: "a name of 257 characters", input: { name: "a".repeat(257) }, locations: ["body.name"], detail: "at most 256" },
    {
      what: "a string for deleteProtection", input: { name: "abc", deleteProtection: "true" },
      locations: ["body.deleteProtection"], detail: "must be a boolean",
    },
    {
      what: "a number for storeEncryptedKeys", input: { name: "abc", storeEncryptedKeys: 1 },
      locations: ["body.storeEncryptedKeys"], detail: "must be a boolean",
    },
    {
      what: "several wrong types at once, naming each", input: { name: 5, deleteProtection: "yes" },
      locations: ["body.name", "body.deleteProtection"],
    },
    {
      what: "an unknown field (v2 refuses what v1 tolerates)", input: { name: "abc", unknownField: 1 },
      locations: ["body.unknownField"], detail: "body.unknownField", vias: ["v2"],
    },
  ]);

  badRpcCases(harness, "apis.createApi", [
    { what: "a missing name", input: {}, field: "name:" },
    { what: "a name of 2 characters", input: { name: "ab" }, field: "name:" },
    { what: "a name of 257 characters", input: { name: "a".repeat(257) }, field: "name:" },
  ]);

  it("v1 tolerates unknown fields: the api is created from the known ones", async () => {
    const op = OPERATIONS["apis.createApi"];
    const created = expectSuccess(await callOperation(harness.keyward.baseUrl, "v1", op, { name: "tolerant", unknownField: 1 }, {
      authorization: bearerOf(harness.keyward.rootKey),
    }));
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, created.apiId)).toMatchObject({
      id: created.apiId, name: "tolerant",
    });
  });
});
