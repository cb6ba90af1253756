import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.listKeys"];

describe("apis.listKeys", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.listKeys", {
    validInput: async (h) => ({ apiId: await h.seed.api() }),
    badInputs: {
      rest: ["{not json", "[]", { apiId: "" }, { apiId: "api_12345678", limit: "5" }],
      rpc: [{ apiId: "" }, { apiId: "api_12345678", limit: 0 }],
    },
  });

  it("a root key holding only api.<idA>.read_key lists api A's keys and gets 403 for api B", async () => {
    const apiA = await harness.seed.api({ name: "api-a" });
    const apiB = await harness.seed.api({ name: "api-b" });
    const { key } = await harness.seed.rootKey([`api.${apiA}.read_key`]);
    for (const via of viasOf(op)) {
      const data = expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, { apiId: apiA }, { authorization: bearerOf(key) }));
      if (via === "v1") expect(data).toEqual({ keys: [], total: 0 });
      else if (via === "v2") expect(data).toEqual([]);
      else expect(data).toMatchObject({ data: [] });
      await expectRefusal(harness, {
        via, op: "apis.listKeys", input: { apiId: apiB }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: api.*.read_key or api.${apiB}.read_key`,
      });
    }
  });

  it("a root key holding read_api but not read_key gets 403 naming api.*.read_key", async () => {
    const apiId = await harness.seed.api();
    const { key } = await harness.seed.rootKey(["api.*.read_api", `api.${apiId}.read_api`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "apis.listKeys", input: { apiId }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: api.*.read_key",
      });
    }
  });

  it("an api of another workspace answers 404, never 403", async () => {
    const apiId = await harness.seed.api({ name: "home-api" });
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`api.${apiId}.read_key`], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) {
      for (const via of viasOf(op)) {
        await expectRefusal(harness, {
          via, op: "apis.listKeys", input: { apiId }, authorization: bearerOf(key), kind: "not_found", detail: apiId,
        });
      }
    }
  });
});
