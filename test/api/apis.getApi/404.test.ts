import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("apis.getApi", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);

  it("answers 404 (v2 body, v1 NOT_FOUND, RPC NOT_FOUND) for an api id that never existed, on every transport", async () => {
    const apiId = "api_1111111111111111111111";
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.getApi", { apiId }, "not_found", { detail: `The api ${apiId} does not exist.` });
    }
  });

  it("answers 404 for a deleted api on every transport", async () => {
    const apiId = await harness.seed.api({ name: "gone" });
    await via("v2").ok("apis.deleteApi", { apiId });
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.getApi", { apiId }, "not_found", { detail: apiId });
    }
  });

  it("answers 404, never 403, for an api of another workspace, even to a key naming that api", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const other = await harness.seed.workspace("get-404-other");
    const named = await harness.seed.rootKey([`api.${apiId}.read_api`], { by: other.rootKey.key });
    harness.writes.clear();
    for (const key of [other.rootKey.key, named.key]) {
      for (const name of ALL_VIAS) {
        await via(name).fails("apis.getApi", { apiId }, "not_found", { rootKey: key, detail: apiId });
      }
    }
    expect(harness.writes.writes).toEqual([]);
    // The api is still there for its own workspace.
    expect((await via("v2").ok("apis.getApi", { apiId })).name).toBe("home-api");
  });
});
