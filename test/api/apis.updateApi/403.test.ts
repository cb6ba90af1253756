import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { viaClient } from "../../support/vias.js";

const op = OPERATIONS["apis.updateApi"];

describe("apis.updateApi", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.updateApi", {
    validInput: async (h) => ({ apiId: await h.seed.api({ name: "forbidden" }), ipWhitelist: ["10.0.0.0/8"] }),
    badInputs: { rest: ["{not json", { apiId: "x" }, { apiId: "api_1111111111111111111111", ipWhitelist: ["nope"] }], rpc: [{ apiId: "x" }, { apiId: "api_1111111111111111111111", defaultBytes: 300 }] },
  });

  it("a root key granted update_api on api A alone changes A, and gets 403 naming both permissions on api B", async () => {
    const apiA = await harness.seed.api({ name: "granted-a" });
    const apiB = await harness.seed.api({ name: "granted-b" });
    const { key } = await harness.seed.rootKey([`api.${apiA}.update_api`]);
    for (const via of viasOf(op)) {
      const changed = await viaClient(harness.keyward.baseUrl, via, key).ok("apis.updateApi", { apiId: apiA, name: `by-${via}` });
      expect(changed.name).toBe(`by-${via}`);
      await expectRefusal(harness, {
        via, op: "apis.updateApi", input: { apiId: apiB, name: "stolen" }, authorization: bearerOf(key), kind: "forbidden",
        detail: `Missing permission: api.*.update_api or api.${apiB}.update_api`,
      });
    }
    expect((await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiB))?.name).toBe("granted-b");
  });

  it("other api permissions on the api (read, delete, create_key, its keys' update_key) do not allow changing it", async () => {
    const apiId = await harness.seed.api({ name: "not-updatable" });
    const { key } = await harness.seed.rootKey([
      "api.*.read_api", "api.*.delete_api", "api.*.create_key", "api.*.update_key", `api.${apiId}.read_api`, `api.${apiId}.update_key`,
    ]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "apis.updateApi", input: { apiId, deleteProtection: true }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: api.*.update_api",
      });
    }
  });
});
