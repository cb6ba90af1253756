import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, expectEmptyKeyList, viaClient } from "../../support/vias.js";

describe("apis.listKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("lists no keys for a new api, in each dialect's list shape without a cursor, on every transport", async () => {
    const apiId = await harness.seed.api({ name: "keyless" });
    for (const name of ALL_VIAS) expectEmptyKeyList(await via(name).call("apis.listKeys", { apiId }));
  });

  it("accepts the paging parameters: limit at its bounds and an empty cursor still list no keys", async () => {
    const apiId = await harness.seed.api({ name: "paged" });
    for (const name of ALL_VIAS) {
      for (const limit of [1, 100]) expectEmptyKeyList(await via(name).call("apis.listKeys", { apiId, limit }));
    }
    expectEmptyKeyList(await via("v2").call("apis.listKeys", { apiId, limit: 5, cursor: "" }));
  });

  it("serves a root key holding read_key for exactly this api, and writes nothing", async () => {
    const apiId = await harness.seed.api({ name: "scoped" });
    const { key } = await harness.seed.rootKey([`api.${apiId}.read_key`]);
    harness.writes.clear();
    for (const name of ALL_VIAS) expectEmptyKeyList(await via(name, key).call("apis.listKeys", { apiId }));
    expect(harness.writes.writes).toEqual([]);
  });
});
