import { describe, expect, it } from "vitest";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.updateApi"];

describe("apis.updateApi", () => {
  const harness = useKeyward();
  async function refuse404(apiId: string, key: string) {
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "apis.updateApi", input: { apiId, name: "renamed", ipWhitelist: ["10.0.0.1"] }, authorization: bearerOf(key), kind: "not_found",
        detail: `The api ${apiId} does not exist.`,
      });
    }
  }

  it("answers 404 for an api id that never existed, on v2, Connect, gRPC and gRPC-Web", async () => {
    await refuse404("api_1111111111111111111111", harness.keyward.rootKey);
  });

  it("answers 404 for a deleted api, and does not bring it back", async () => {
    const apiId = await harness.seed.api({ name: "deleted-before" });
    expect((await harness.rest.v2("apis.deleteApi", { apiId }, harness.keyward.rootKey)).status).toBe(200);
    await refuse404(apiId, harness.keyward.rootKey);
    expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toBeUndefined();
  });

  it("answers 404, never 403, for an api of another workspace, even to a root key there naming the api", async () => {
    const apiId = await harness.seed.api({ name: "home-settings" });
    const other = await harness.seed.workspace("update-404-other");
    const named = await harness.seed.rootKey([`api.${apiId}.update_api`], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) await refuse404(apiId, key);
    const api = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId);
    expect({ name: api?.name, ipWhitelist: api?.ipWhitelist, revision: api?.revision }).toEqual({ name: "home-settings", ipWhitelist: undefined, revision: undefined });
  });
});
