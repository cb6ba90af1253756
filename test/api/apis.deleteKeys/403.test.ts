import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("apis.deleteKeys", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.deleteKeys", {
    validInput: async (h) => ({ apiId: await h.seed.api({ name: "forbidden" }) }),
    badInputs: { rest: ["{not json", { apiId: "" }, { apiId: "api_12345678", permanent: "yes" }], rpc: [{ apiId: "" }] },
  });

  it("answers 403 naming api.<apiId>.delete_key to a key granted delete_key on another api only (or delete_api), deleting nothing", async () => {
    const apiId = await harness.seed.api({ name: "target" });
    const other = await harness.seed.api({ name: "granted" });
    const { keyId } = await harness.seed.key(apiId);
    const { key: rootKey } = await harness.seed.rootKey([`api.${other}.delete_key`, "api.*.delete_api", "api.*.read_key"]);
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      await viaClient(harness.keyward.baseUrl, name, rootKey).fails("apis.deleteKeys", { apiId }, "forbidden", {
        detail: `api.${apiId}.delete_key`,
      });
    }
    expect(harness.writes.writes).toEqual([]);
    expect((await apiKeys(harness, apiId)).map((k) => k.id)).toEqual([keyId]);
  });
});
