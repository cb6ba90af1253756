import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { apiKeys, dataOf } from "../../support/key-state.js";
import { viasOf, OPERATIONS } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

const vias = viasOf(OPERATIONS["keys.createKey"]);

describe("keys.createKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "keys.createKey", {
    validInput: async (h) => ({ apiId: await h.seed.api({ name: "forbidden" }) }),
    badInputs: {
      rest: ["{not json", "[]", { apiId: "x" }, { apiId: "api_12345678", byteLength: 15 }],
      rpc: [{ apiId: "x" }, { apiId: "api_12345678", byteLength: 300 }],
    },
  });

  it("a root key holding only api.<apiA>.create_key creates keys in api A and gets 403 for api B, which stays empty", async () => {
    const apiA = await harness.seed.api({ name: "api-a" });
    const apiB = await harness.seed.api({ name: "api-b" });
    const { key } = await harness.seed.rootKey([`api.${apiA}.create_key`]);
    for (const via of vias) {
      dataOf("keys.createKey", await viaClient(harness.keyward.baseUrl, via, key).call("keys.createKey", { apiId: apiA }));
      await expectRefusal(harness, {
        via, op: "keys.createKey", input: { apiId: apiB }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: api.*.create_key or api.${apiB}.create_key`,
      });
    }
    expect(await apiKeys(harness, apiA)).toHaveLength(vias.length);
    expect(await apiKeys(harness, apiB)).toEqual([]);
  });

  it("a root key holding read_key and update_key but not create_key gets 403 naming api.*.create_key", async () => {
    const apiId = await harness.seed.api({ name: "readers" });
    const { key } = await harness.seed.rootKey(["api.*.read_key", "api.*.update_key", `api.${apiId}.read_key`]);
    for (const via of vias) {
      await expectRefusal(harness, {
        via, op: "keys.createKey", input: { apiId }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: api.*.create_key",
      });
    }
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });
});
