import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["apis.listApis"];
const BAD = { rest: ["{not json", "null", { limit: 0 }, { limit: "5" }, { search: "" }], rpc: [{ limit: 0 }, { limit: 101 }, { search: "" }] };

describe("apis.listApis", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "apis.listApis", { validInput: async () => ({ limit: 10 }), badInputs: BAD });

  it("other api permissions, wildcard or per api, do not allow listing: 403 naming api.*.read_api", async () => {
    const apiId = await harness.seed.api({ name: "not-listable" });
    const { key } = await harness.seed.rootKey([
      "api.*.create_api", "api.*.read_key", "api.*.delete_api", `api.${apiId}.read_key`, `api.${apiId}.update_api`, "ratelimit.*.read_namespace",
    ]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "apis.listApis", input: {}, authorization: bearerOf(key), kind: "forbidden", detail: "Missing permission: api.*.read_api",
      });
    }
  });

  it("a root key holding only api.<idA>.read_api lists api A alone, never api B", async () => {
    const apiA = await harness.seed.api({ name: "listed-a" });
    const apiB = await harness.seed.api({ name: "listed-b" });
    const { key } = await harness.seed.rootKey([`api.${apiA}.read_api`]);
    for (const via of viasOf(op)) {
      const data = expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, {}, { authorization: bearerOf(key) }));
      const items = (via === "v2" ? data : data.data) as { id: string; name: string }[];
      expect(items.map((a) => [a.id, a.name])).toEqual([[apiA, "listed-a"]]);
      expect(items.map((a) => a.id)).not.toContain(apiB);
    }
  });

  it("a root key of another workspace granted this workspace's api lists nothing of it, not even that api", async () => {
    const apiId = await harness.seed.api({ name: "home-only" });
    const other = await harness.seed.workspace();
    const named = await harness.seed.rootKey([`api.${apiId}.read_api`], { by: other.rootKey.key });
    for (const key of [other.rootKey.key, named.key]) {
      for (const via of viasOf(op)) {
        const data = expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, {}, { authorization: bearerOf(key) }));
        expect(via === "v2" ? data : data.data).toEqual([]);
      }
    }
  });
});
