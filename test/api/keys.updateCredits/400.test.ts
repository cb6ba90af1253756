import { describe, expect, it } from "vitest";
import { badInputCases, badRpcCases, NOT_AN_OBJECT } from "../../support/bad-input.js";
import { expectKeysUnchanged } from "../../support/key-state.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

const KEY = "key_1111111111111111111111";

describe("keys.updateCredits", () => {
  const harness = useKeyward();
  badInputCases(harness, "keys.updateCredits", [
    ...NOT_AN_OBJECT,
    { what: "a missing keyId", input: { operation: "set", value: 1 }, locations: ["body.keyId"], detail: "keyId", vias: ["v2"] },
    { what: 'operation "add"', input: { keyId: KEY, operation: "add", value: 1 }, locations: ["body.operation"], detail: "operation", vias: ["v2"] },
    { what: "a missing operation", input: { keyId: KEY, value: 1 }, locations: ["body.operation"], detail: "operation", vias: ["v2"] },
    { what: "a negative value", input: { keyId: KEY, operation: "set", value: -1 }, locations: ["body.value"], detail: "value", vias: ["v2"] },
    { what: "a string value", input: { keyId: KEY, operation: "set", value: "5" }, locations: ["body.value"], vias: ["v2"] },
    { what: "a fractional value", input: { keyId: KEY, operation: "set", value: 1.5 }, locations: ["body.value"], vias: ["v2"] },
    { what: "the v1 field op on v2", input: { keyId: KEY, op: "set", value: 1 }, locations: ["body.op"], vias: ["v2"] },
    { what: 'v1 op "add"', input: { keyId: KEY, op: "add", value: 1 }, detail: "operation", vias: ["v1"] },
    { what: "v1 without op", input: { keyId: KEY, value: 1 }, detail: "operation", vias: ["v1"] },
    { what: "v1 with a negative value", input: { keyId: KEY, op: "set", value: -3 }, detail: "value", vias: ["v1"] },
    // Unkey v1 takes null for unlimited but no absent value (F22).
    { what: "v1 set without a value", input: { keyId: KEY, op: "set" }, detail: "value is required (null for unlimited)", vias: ["v1"] },
  ]);
  badRpcCases(harness, "keys.updateCredits", [
    { what: 'operation "add"', input: { keyId: KEY, operation: "add", value: "1" }, field: "operation" },
    { what: "a missing keyId", input: { operation: "set" }, field: "keyId" },
  ]);

  it("answers 400 naming value to increment or decrement without a value, on every transport, changing nothing", async () => {
    const apiId = await harness.seed.api({ name: "no-value" });
    const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 5 } });
    for (const via of viasOf(OPERATIONS["keys.updateCredits"])) {
      for (const operation of ["increment", "decrement"]) {
        const input = via === "v1" ? { keyId, op: operation, value: null } : { keyId, operation };
        await expectKeysUnchanged(harness, { keyIds: [keyId] }, async () => {
          const outcome = await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey)
            .fails("keys.updateCredits", input, "invalid", { detail: `${operation} needs a value` });
          if (outcome.via === "v2") expect(outcome.rest.body.error.errors).toEqual([{ location: "body.value", message: "required for increment and decrement" }]);
        });
      }
    }
  });

  it("answers 400 (Unkey's status) naming operation to increment or decrement on an unlimited key, on every transport, leaving it unlimited", async () => {
    const apiId = await harness.seed.api({ name: "unlimited" });
    const { keyId } = await harness.seed.key(apiId);
    for (const via of viasOf(OPERATIONS["keys.updateCredits"])) {
      for (const operation of ["increment", "decrement"]) {
        const input = via === "v1" ? { keyId, op: operation, value: 5 } : { keyId, operation, value: via === "v2" ? 5 : "5" };
        await expectKeysUnchanged(harness, { keyIds: [keyId] }, async () => {
          const outcome = await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey)
            .fails("keys.updateCredits", input, "invalid", { detail: `The key ${keyId} has unlimited credits` });
          if (outcome.via === "v2") expect(outcome.rest.body.error.errors).toEqual([{ location: "body.operation", message: "needs a credit balance" }]);
        });
      }
    }
    const key = await viaClient(harness.keyward.baseUrl, "v2", harness.keyward.rootKey).ok("keys.getKey", { keyId });
    expect(key.credits).toBeUndefined();
  });

  it("answers 400 naming value to an increment past 2^53 - 1, on every transport, keeping the balance", async () => {
    const apiId = await harness.seed.api({ name: "too-many-credits" });
    const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 2 ** 53 - 10 } });
    for (const via of viasOf(OPERATIONS["keys.updateCredits"])) {
      const input = via === "v1" ? { keyId, op: "increment", value: 10 } : { keyId, operation: "increment", value: via === "v2" ? 10 : "10" };
      await expectKeysUnchanged(harness, { keyIds: [keyId] }, async () => {
        const outcome = await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey)
          .fails("keys.updateCredits", input, "invalid", { detail: "increment by 10 would take the balance past 2^53 - 1" });
        if (outcome.via === "v2") expect(outcome.rest.body.error.errors).toEqual([{ location: "body.value", message: "the balance would exceed 2^53 - 1" }]);
      });
    }
    const key = await viaClient(harness.keyward.baseUrl, "v2", harness.keyward.rootKey).ok("keys.getKey", { keyId });
    expect(key.credits.remaining).toBe(2 ** 53 - 10);
  });
});
