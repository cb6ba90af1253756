import { describe, expect, it } from "vitest";
import { apiKeys, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("apis.deleteKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("answers 404 for an api id that never existed, writing nothing, on every transport", async () => {
    const apiId = "api_1111111111111111111111";
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.deleteKeys", { apiId }, "not_found", { detail: `The api ${apiId} does not exist.` });
    }
    expect(harness.writes.writes).toEqual([]);
  });

  it("answers 404, never 403, for an api of another workspace, whose keys keep verifying", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const { key } = await harness.seed.key(apiId);
    const other = await harness.seed.workspace("delete-keys-404-other");
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      await via(name, other.rootKey.key).fails("apis.deleteKeys", { apiId, permanent: true }, "not_found", { detail: apiId });
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await apiKeys(harness, apiId)).toHaveLength(1);
    expect(await verifyCode(harness, key)).toBe("VALID");
  });

  it("answers 404 for a deleted api on every transport", async () => {
    const apiId = await harness.seed.api({ name: "deleted" });
    await harness.seed.key(apiId);
    await via("v2").ok("apis.deleteApi", { apiId });
    harness.writes.clear();
    for (const name of ALL_VIAS) await via(name).fails("apis.deleteKeys", { apiId }, "not_found", { detail: apiId });
    expect(harness.writes.writes).toEqual([]);
  });
});
