import { describe, expect, it } from "vitest";
import { apiKeys } from "../../support/key-state.js";
import { viasOf, OPERATIONS } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const vias = viasOf(OPERATIONS["keys.createKey"]);

describe("keys.createKey", () => {
  const harness = useKeyward();
  const refuse = async (apiId: string, rootKey = harness.keyward.rootKey) => {
    for (const via of vias) {
      await expectRefusal(harness, {
        via, op: "keys.createKey", input: { apiId, externalId: "never_created" }, authorization: bearerOf(rootKey),
        kind: "not_found", detail: `The api ${apiId} does not exist.`,
      });
    }
    expect(await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, "never_created")).toBeUndefined();
  };

  it("answers 404 for an api id that never existed, creating nothing", async () => {
    await refuse("api_1111111111111111111111");
  });

  it("answers 404 for a deleted api, creating nothing", async () => {
    const apiId = await harness.seed.api({ name: "gone" });
    await harness.rest.v2("apis.deleteApi", { apiId }, harness.keyward.rootKey);
    await refuse(apiId);
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });

  it("answers 404, never 403, for an api of another workspace, even to a root key naming it", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const other = await harness.seed.workspace("create-404");
    const named = await harness.seed.rootKey([`api.${apiId}.create_key`], { by: other.rootKey.key });
    await refuse(apiId, other.rootKey.key);
    await refuse(apiId, named.key);
    expect(await apiKeys(harness, apiId)).toEqual([]);
    expect(await harness.keyward.documents.identities.findByExternalId(other.workspaceId, "never_created")).toBeUndefined();
  });
});
