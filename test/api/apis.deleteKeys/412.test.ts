import { describe, expect, it } from "vitest";
import { apiKeys, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, expectPreconditionFailed, viaClient } from "../../support/vias.js";

describe("apis.deleteKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("refuses while the api is delete-protected: v1 412 DELETE_PROTECTED, v2 412, RPC FAILED_PRECONDITION; nothing deleted", async () => {
    const apiId = await harness.seed.api({ name: "protected", deleteProtection: true });
    const { key } = await harness.seed.key(apiId, { credits: { remaining: 3 } });
    const before = await apiKeys(harness, apiId);
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      for (const permanent of [false, true]) {
        const outcome = await via(name).call("apis.deleteKeys", { apiId, permanent });
        expectPreconditionFailed(outcome, { v1Code: "DELETE_PROTECTED", detail: `The api ${apiId} is protected from deletion` });
      }
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await apiKeys(harness, apiId)).toEqual(before);
    expect(await verifyCode(harness, key)).toBe("VALID");
  });

  it("checks existence before protection: an unknown id is 404, not 412", async () => {
    for (const name of ALL_VIAS) await via(name).fails("apis.deleteKeys", { apiId: "api_1111111111111111111111" }, "not_found");
  });
});
