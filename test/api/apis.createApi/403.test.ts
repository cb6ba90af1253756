import { describe, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.createApi"];

describe("apis.createApi", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.createApi", {
    validInput: async () => ({ name: "forbidden-api" }),
    badInputs: { rest: ["{not json", "[]", { name: 5 }, { name: "ab", extra: true }], rpc: [{ name: "ab" }, {}] },
  });

  it("create_api granted for one api id does not allow creating apis: 403 naming api.*.create_api", async () => {
    const apiId = await harness.seed.api();
    const { key } = await harness.seed.rootKey([`api.${apiId}.create_api`]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "apis.createApi", input: { name: "not-created" }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: api.*.create_api",
      });
    }
  });

  it("other api permissions, even on every api, do not allow creating apis", async () => {
    const { key } = await harness.seed.rootKey(["api.*.read_api", "api.*.update_api", "api.*.delete_api"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "apis.createApi", input: { name: "not-created" }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: api.*.create_api",
      });
    }
  });
});
