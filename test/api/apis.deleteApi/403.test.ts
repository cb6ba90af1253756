import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward, type Harness } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.deleteApi"];

async function expectLive(harness: Harness, apiId: string) {
  expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId)).toMatchObject({ id: apiId });
}

describe("apis.deleteApi", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.deleteApi", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    badInputs: { rest: ["{not json", "null", { apiId: 12345678 }, { apiId: "short", extra: 1 }], rpc: [{ apiId: "short" }, {}] },
  });

  it("a root key holding only api.<idA>.delete_api gets 403 for api B (which survives) and deletes api A", async () => {
    for (const via of viasOf(op)) {
      const apiA = await harness.seed.api({ name: "api-a" });
      const apiB = await harness.seed.api({ name: "api-b" });
      const { key } = await harness.seed.rootKey([`api.${apiA}.delete_api`]);
      await expectRefusal(harness, {
        via, op: "apis.deleteApi", input: { apiId: apiB }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: api.*.delete_api or api.${apiB}.delete_api`,
      });
      await expectLive(harness, apiB);
      expect(expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, { apiId: apiA }, { authorization: bearerOf(key) })))
        .toBeDefined();
      expect(await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiA)).toBeUndefined();
    }
  });

  it("an api of another workspace answers 404, never 403, and is not deleted", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`api.${apiId}.delete_api`], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) {
      for (const via of viasOf(op)) {
        await expectRefusal(harness, {
          via, op: "apis.deleteApi", input: { apiId }, authorization: bearerOf(key), kind: "not_found", detail: apiId,
        });
      }
    }
    await expectLive(harness, apiId);
  });
});
