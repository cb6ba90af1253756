import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("apis.deleteApi", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("answers 404 for an api id that never existed, writing nothing, on every transport", async () => {
    const apiId = "api_1111111111111111111111";
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.deleteApi", { apiId }, "not_found", { detail: `The api ${apiId} does not exist.` });
    }
    expect(harness.writes.writes).toEqual([]);
  });

  it("answers 404 to every later delete of an already deleted api, on every transport", async () => {
    const apiId = await harness.seed.api({ name: "deleted-once" });
    await via("v2").ok("apis.deleteApi", { apiId });
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.deleteApi", { apiId }, "not_found", { detail: apiId });
    }
    expect(harness.writes.writes).toEqual([]);
  });

  it("answers 404, never 403, for an api of another workspace, which stays intact", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const other = await harness.seed.workspace("delete-404-other");
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      await via(name, other.rootKey.key).fails("apis.deleteApi", { apiId }, "not_found", { detail: apiId });
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ id: apiId, name: "home-api" });
  });

  it("an api of another workspace is 404 to this one until its owner deletes it, then 404 to the owner too", async () => {
    const other = await harness.seed.workspace("delete-404-owner");
    const apiId = await harness.seed.api({ name: "their-api", by: other.rootKey.key });
    for (const name of ALL_VIAS) {
      await via(name).fails("apis.deleteApi", { apiId }, "not_found", { detail: apiId });
    }
    await via("grpc", other.rootKey.key).ok("apis.deleteApi", { apiId });
    for (const name of ALL_VIAS) {
      await via(name, other.rootKey.key).fails("apis.getApi", { apiId }, "not_found", { detail: apiId });
    }
  });
});
