import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.migrateKeys", () => {
  const harness = useKeyward();

  it("an api of another workspace, a deleted api and an unknown one are 404 on every transport; nothing is imported", async () => {
    const other = await harness.seed.workspace("import-other");
    const theirs = await harness.seed.api({ name: "theirs", by: other.rootKey.key });
    const deleted = await harness.seed.api({ name: "deleted" });
    expect((await harness.rest.v2("apis.deleteApi", { apiId: deleted }, harness.keyward.rootKey)).status).toBe(200);
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
      for (const apiId of [theirs, deleted, "api_unknown1234"]) {
        const hash = foreignKey().base64;
        await client.fails("keys.migrateKeys", { migrationId: "sha256_base64", apiId, keys: [{ hash }] }, "not_found", { detail: `The api ${apiId} does not exist.` });
      }
    }
    expect(await apiKeys(harness, theirs, other.workspaceId)).toEqual([]);
    await expectKeysUnchanged(harness, { apiIds: [theirs], workspaceId: other.workspaceId }, async () => {});
  });
});
