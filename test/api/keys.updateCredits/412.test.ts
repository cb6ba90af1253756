import { describe, expect, it } from "vitest";
import { expectKeysUnchanged, keyState } from "../../support/key-state.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { useKeyward } from "../../support/use-keyward.js";
import { expectPreconditionFailed, viaClient } from "../../support/vias.js";

describe("keys.updateCredits", () => {
  const harness = useKeyward();

  it("answers 412 to increment or decrement on an unlimited key, on every transport, leaving it unlimited", async () => {
    const apiId = await harness.seed.api({ name: "unlimited" });
    const { keyId } = await harness.seed.key(apiId);
    for (const via of viasOf(OPERATIONS["keys.updateCredits"])) {
      for (const operation of ["increment", "decrement"]) {
        const input = via === "v1" ? { keyId, op: operation, value: 5 } : { keyId, operation, value: 5 };
        await expectKeysUnchanged(harness, { keyIds: [keyId] }, async () => {
          const outcome = await viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey).call("keys.updateCredits", input);
          expectPreconditionFailed(outcome, { v1Code: "PRECONDITION_FAILED", detail: `The key ${keyId} has unlimited credits` });
        });
      }
    }
    expect(await keyState(harness, keyId)).toMatchObject({ remaining: undefined });
    expect((await keyState(harness, keyId)).record?.credits).toBeUndefined();
  });
});
