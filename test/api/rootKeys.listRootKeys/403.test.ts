import { describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["rootKeys.listRootKeys"];

describe("rootKeys.listRootKeys", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "rootKeys.listRootKeys", {
    validInput: async () => ({ limit: 10 }),
    badInputs: { rest: ["{not json", "null", { limit: 0 }, { limit: "5" }, { cursor: "not-a-cursor" }], rpc: [{ limit: 0 }, { limit: 101 }] },
  });

  it("create and delete root-key permissions do not allow listing: 403 naming rootkey.*.read_root_key", async () => {
    const { key } = await harness.seed.rootKey(["rootkey.*.create_root_key", "rootkey.*.delete_root_key"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "rootKeys.listRootKeys", input: {}, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: rootkey.*.read_root_key",
      });
    }
  });

  it("lists only the caller's workspace: another workspace's key sees its own root key, not this one's", async () => {
    const other = await harness.seed.workspace();
    for (const via of viasOf(op)) {
      const data = expectSuccess(await callOperation(harness.keyward.baseUrl, via, op, {}, { authorization: bearerOf(other.rootKey.key) }));
      const items = via === "v2" ? data : data.data;
      expect(items.map((k: { keyId: string }) => k.keyId)).toEqual([other.rootKey.keyId]);
    }
  });
});
