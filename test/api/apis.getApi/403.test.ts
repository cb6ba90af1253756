import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.getApi"];

describe("apis.getApi", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.getApi", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    badInputs: { rest: ["{not json", "[]", { apiId: 12345678 }, { apiId: "short" }], rpc: [{ apiId: "short" }, {}] },
  });

  it("a root key holding only api.<idA>.read_api reads api A and gets 403 for api B, naming both grants", async () => {
    const apiA = await harness.seed.api({ name: "api-a" });
    const apiB = await harness.seed.api({ name: "api-b" });
    const { key } = await harness.seed.rootKey([`api.${apiA}.read_api`]);
    for (const via of viasOf(op)) {
      const data = expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, { apiId: apiA }, { authorization: bearerOf(key) }));
      expect(data).toMatchObject({ id: apiA, name: "api-a", workspaceId: harness.keyward.workspaceId });
      await expectRefusal(harness, {
        via, op: "apis.getApi", input: { apiId: apiB }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: api.*.read_api or api.${apiB}.read_api`,
      });
    }
  });

  it("an api of another workspace answers 404, never 403, even to a key granted that api id", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`api.${apiId}.read_api`], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) {
      for (const via of viasOf(op)) {
        await expectRefusal(harness, {
          via, op: "apis.getApi", input: { apiId }, authorization: bearerOf(key), kind: "not_found", detail: apiId,
        });
      }
    }
  });
});
