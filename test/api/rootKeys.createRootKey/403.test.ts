import { describe, expect, it } from "vitest";
import { hashKey } from "../../../src/domain/key-material.js";
import { expectSuccess } from "../../support/expect-outcome.js";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { callOperation, OPERATIONS, viasOf } from "../../support/operations.js";
import { bearerOf, expectRefusal } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";

const op = OPERATIONS["rootKeys.createRootKey"];

describe("rootKeys.createRootKey", () => {
  const harness = useKeyward();
  forbiddenMatrix(harness, "rootKeys.createRootKey", {
    validInput: async () => ({ permissions: ["api.*.read_api"] }),
    badInputs: {
      rest: ["{not json", "[]", { permissions: [] }, { permissions: ["not.a.permission"] }, { permissions: "api.*.read_api" }],
      rpc: [{ permissions: [] }, { permissions: ["not.a.permission"] }],
    },
  });

  it("granting a permission the caller does not hold is 403 naming it, and no root key is created", async () => {
    const { key } = await harness.seed.rootKey(["rootkey.*.create_root_key", "api.*.read_api"]);
    for (const via of viasOf(op)) {
      await expectRefusal(harness, {
        via, op: "rootKeys.createRootKey", input: { permissions: ["api.*.read_api", "api.*.delete_api"] },
        authorization: bearerOf(key), kind: "forbidden",
        detail: "Cannot grant permissions the root key does not hold: api.*.delete_api",
      });
      await expectRefusal(harness, {
        via, op: "rootKeys.createRootKey", input: { permissions: ["workspace.*.create_workspace"] },
        authorization: bearerOf(key), kind: "forbidden",
        detail: "Cannot grant permissions the root key does not hold: workspace.*.create_workspace",
      });
    }
  });

  it("a key holding api.<idA>.read_api may pass on that grant but not the wildcard or another api's", async () => {
    const apiA = await harness.seed.api({ name: "api-a" });
    const apiB = await harness.seed.api({ name: "api-b" });
    const { key } = await harness.seed.rootKey(["rootkey.*.create_root_key", `api.${apiA}.read_api`]);
    for (const via of viasOf(op)) {
      for (const beyond of ["api.*.read_api", `api.${apiB}.read_api`]) {
        await expectRefusal(harness, {
          via, op: "rootKeys.createRootKey", input: { permissions: [beyond] }, authorization: bearerOf(key),
          kind: "forbidden", detail: `Cannot grant permissions the root key does not hold: ${beyond}`,
        });
      }
      const created = expectSuccess(await callOperation(
        harness.keyward.baseUrl, via, op, { permissions: [`api.${apiA}.read_api`] }, { authorization: bearerOf(key) },
      ));
      const record = await harness.keyward.documents.rootKeys.findByHash(hashKey(created.key));
      expect(record).toMatchObject({ id: created.keyId, permissions: [`api.${apiA}.read_api`] });
    }
  });

  it("a wildcard grant covers a specific one: api.*.read_api may grant api.<id>.read_api", async () => {
    const apiId = await harness.seed.api();
    const { key } = await harness.seed.rootKey(["rootkey.*.create_root_key", "api.*.read_api"]);
    const created = expectSuccess(await callOperation(
      harness.keyward.baseUrl, "v2", op, { permissions: [`api.${apiId}.read_api`] }, { authorization: bearerOf(key) },
    ));
    expect(await harness.keyward.documents.rootKeys.findByHash(hashKey(created.key))).toMatchObject({
      permissions: [`api.${apiId}.read_api`],
    });
  });
});
