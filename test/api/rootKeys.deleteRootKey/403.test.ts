import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["rootKeys.deleteRootKey"];

describe("rootKeys.deleteRootKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "rootKeys.deleteRootKey", {
    validInput: async (h) => ({ keyId: (await h.seed.rootKey(["api.*.read_api"])).keyId }),
    badInputs: { rest: ["{not json", "[]", { keyId: "" }, { keyId: 5 }], rpc: [{ keyId: "" }, {}] },
  });

  it("a root key without delete_root_key cannot delete even itself", async () => {
    const { key, keyId } = await harness.seed.rootKey(["rootkey.*.read_root_key", "rootkey.*.create_root_key"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "rootKeys.deleteRootKey", input: { keyId }, authorization: bearerOf(key), kind: "forbidden",
        detail: "Missing permission: rootkey.*.delete_root_key",
      });
    }
    expect(await harness.keyward.documents.rootKeys.get(harness.keyward.workspaceId, keyId)).toMatchObject({ id: keyId });
  });

  it("a root key of another workspace answers 404, never 403, and stays live", async () => {
    const target = await harness.seed.rootKey(["api.*.read_api"]);
    const other = await harness.seed.workspace();
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "rootKeys.deleteRootKey", input: { keyId: target.keyId }, authorization: bearerOf(other.rootKey.key),
        kind: "not_found", detail: target.keyId,
      });
    }
    expect(await harness.keyward.documents.rootKeys.get(harness.keyward.workspaceId, target.keyId)).toMatchObject({
      id: target.keyId,
    });
  });
});
