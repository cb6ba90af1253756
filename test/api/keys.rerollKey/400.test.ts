import { describe, expect, it } from "vitest";
import { expectKeysUnchanged, verifyCode } from "../../support/key-state.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

const KEY = "key_1111111111111111111111";

describe("keys.rerollKey", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.rerollKey", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: { expiration: 0 }, locations: ["body.keyId"], detail: "keyId" },
    { what: "a keyId with a dash", input: { keyId: "key-1", expiration: 0 }, locations: ["body.keyId"], detail: "pattern" },
    { what: "a negative expiration", input: { keyId: KEY, expiration: -1 }, locations: ["body.expiration"], detail: "expiration" },
    { what: "an expiration over 4102444800000", input: { keyId: KEY, expiration: 4102444800001 }, locations: ["body.expiration"] },
    { what: "a string expiration", input: { keyId: KEY, expiration: "soon" }, locations: ["body.expiration"] },
    { what: "an unknown field", input: { keyId: KEY, expiration: 0, prefix: "x" }, locations: ["body.prefix"] },
    // Unkey requires expiration; an absent one would read as 0 and revoke the original at once (F12).
    { what: "a missing expiration", input: { keyId: KEY }, locations: ["body.expiration"], detail: "expiration" },
  ]);
  badRpcCases(harness, "keys.rerollKey", [
    { what: "a missing keyId", input: { expiration: "0" }, field: "keyId" },
    { what: "a negative expiration", input: { keyId: KEY, expiration: "-1" }, field: "expiration" },
    { what: "a missing expiration", input: { keyId: KEY }, field: "expiration" },
  ]);

  it("a missing expiration is refused on every protocol and the original key keeps verifying (F12)", async () => {
    const apiId = await harness.seed.api({ name: "reroll-required" });
    const { keyId, key } = await harness.seed.key(apiId);
    await expectKeysUnchanged(harness, { keyIds: [keyId] }, async () => {
      for (const via of V2_AND_RPC) {
        await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).fails("keys.rerollKey", { keyId }, "invalid", { detail: "expiration" });
      }
    });
    expect(await verifyCode(harness, key)).toBe("VALID");
  });
});
