import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.deleteRootKey", () => {
  const harness = useKeyward();

  badInputCases(harness, "rootKeys.deleteRootKey", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: {}, locations: ["body.keyId"], detail: "keyId" },
    { what: "an empty keyId", input: { keyId: "" }, locations: ["body.keyId"], detail: "keyId" },
    { what: "a number for keyId", input: { keyId: 5 }, locations: ["body.keyId"], detail: "must be a string" },
    { what: "a keyId of 256 characters", input: { keyId: "k".repeat(256) }, locations: ["body.keyId"], detail: "keyId" },
  ]);

  badRpcCases(harness, "rootKeys.deleteRootKey", [
    { what: "a missing keyId", input: {}, field: "keyId:" },
    { what: "a keyId of 256 characters", input: { keyId: "k".repeat(256) }, field: "keyId:" },
  ]);

  it("v2 refuses an unknown field naming body.<field>, and the root key it names stays live", async () => {
    const { keyId } = await harness.seed.rootKey(["api.*.read_api"]);
    await expectRefusal(harness, {
      via: "v2", op: "rootKeys.deleteRootKey", input: { keyId, permanent: true }, authorization: bearerOf(harness.keyward.rootKey),
      kind: "invalid", locations: ["body.permanent"], detail: "body.permanent",
    });
    expect(await harness.keyward.documents.rootKeys.get(harness.keyward.workspaceId, keyId)).toMatchObject({ id: keyId });
  });
});
