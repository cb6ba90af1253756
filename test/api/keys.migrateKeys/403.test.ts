import { describe, expect, it } from "vitest";
import { forbiddenMatrix } from "../../support/forbidden-matrix.js";
import { foreignKey } from "../../support/imports.js";
import { apiKeys, expectKeysUnchanged } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.migrateKeys", () => {
  const harness = useKeyward();
  const body = (apiId: string, extra: Record<string, unknown> = {}) => ({ migrationId: "sha256_base64", apiId, keys: [{ hash: foreignKey().base64, ...extra }] });
  forbiddenMatrix(harness, "keys.migrateKeys", {
    validInput: async (h) => body(await h.seed.api({ name: "forbidden" })),
    badInputs: { rest: ["{not json", { migrationId: "x", keys: [] }], rpc: [{ migrationId: "x", keys: [] }] },
  });

  it("api.<apiId>.create_key is enough for that api; another api's grant is 403 naming both forms", async () => {
    const [mine, other] = [await harness.seed.api({ name: "granted" }), await harness.seed.api({ name: "not-granted" })];
    const { key } = await harness.seed.rootKey([`api.${mine}.create_key`]);
    for (const name of V2_AND_RPC) {
      const client = viaClient(harness.keyward.baseUrl, name, key);
      expect((await client.ok("keys.migrateKeys", body(mine))).migrated).toHaveLength(1);
      await expectKeysUnchanged(harness, { apiIds: [other] }, () =>
        client.fails("keys.migrateKeys", body(other), "forbidden", { detail: `Missing permission: api.*.create_key or api.${other}.create_key` }));
    }
    expect(await apiKeys(harness, mine)).toHaveLength(V2_AND_RPC.length);
  });

  it("keys naming roles need rbac.*.add_role_to_key, and roles that do not exist rbac.*.create_role; refused, nothing is imported", async () => {
    const apiId = await harness.seed.api({ name: "rbac" });
    const { key: noAssign } = await harness.seed.rootKey(["api.*.create_key"]);
    const { key: noCreate } = await harness.seed.rootKey(["api.*.create_key", "rbac.*.add_role_to_key"]);
    await expectKeysUnchanged(harness, { apiIds: [apiId] }, async () => {
      await viaClient(harness.keyward.baseUrl, "v2", noAssign).fails("keys.migrateKeys", body(apiId, { roles: ["import-role"] }), "forbidden", { detail: "rbac.*.add_role_to_key" });
      await viaClient(harness.keyward.baseUrl, "connect", noCreate).fails("keys.migrateKeys", body(apiId, { roles: ["import-role"] }), "forbidden", { detail: "rbac.*.create_role" });
    });
    expect((await harness.rest.v2("permissions.getRole", { role: "import-role" }, harness.keyward.rootKey)).status).toBe(404);
  });
});
