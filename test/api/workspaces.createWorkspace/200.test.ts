import { describe, expect, it } from "vitest";
import { hashKey } from "../../../src/domain/key-material.js";
import { allPermissions } from "../../../src/domain/permissions.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, REQUEST_ID, V2_AND_RPC, viaClient } from "../../support/vias.js";

const WS_ID = /^ws_[1-9A-HJ-NP-Za-km-z]{22}$/;
const KEY_ID = /^key_[1-9A-HJ-NP-Za-km-z]{22}$/;
const ROOT_KEY = /^kw_root_[1-9A-HJ-NP-Za-km-z]{40,44}$/;

describe("workspaces.createWorkspace", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("creates a workspace and its first root key, holding every permission, on every transport", async () => {
    for (const name of V2_AND_RPC) {
      harness.clock.advance(1_000);
      const created = await via(name).ok("workspaces.createWorkspace", { name: `tenant-${name}` });
      expect(created.workspaceId).toMatch(WS_ID);
      expect(created.rootKey.keyId).toMatch(KEY_ID);
      expect(created.rootKey.key).toMatch(ROOT_KEY);
      expect(await harness.keyward.documents.workspaces.get(created.workspaceId)).toEqual({
        id: created.workspaceId, name: `tenant-${name}`, createdAt: harness.clock.now(),
      });
      expect(await harness.keyward.documents.rootKeys.findByHash(hashKey(created.rootKey.key))).toMatchObject({
        id: created.rootKey.keyId, workspaceId: created.workspaceId, permissions: allPermissions(), createdAt: harness.clock.now(),
      });
      // The new key lists exactly itself in its workspace.
      const listed = await via("v2", created.rootKey.key).ok("rootKeys.listRootKeys", {});
      expect(listed.map((k: { keyId: string; permissions: string[] }) => [k.keyId, k.permissions])).toEqual([
        [created.rootKey.keyId, allPermissions()],
      ]);
    }
  });

  it("answers v2 with exactly {meta:{requestId}, data:{workspaceId, rootKey:{keyId, key}}}", async () => {
    const response = await harness.rest.v2("workspaces.createWorkspace", { name: "shape" }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: {
        workspaceId: expect.stringMatching(WS_ID),
        rootKey: { keyId: expect.stringMatching(KEY_ID), key: expect.stringMatching(ROOT_KEY) },
      },
    });
  });

  it("the new workspace's root key sees none of the default workspace's apis, and the default sees none of its", async () => {
    const homeApi = await harness.seed.api({ name: "home-api" });
    for (const name of V2_AND_RPC) {
      const { rootKey } = await via(name).ok("workspaces.createWorkspace", { name: `isolated-${name}` });
      harness.writes.clear();
      for (const each of ALL_VIAS) {
        const tenant = via(each, rootKey.key);
        await tenant.fails("apis.getApi", { apiId: homeApi }, "not_found", { detail: homeApi });
        await tenant.fails("apis.listKeys", { apiId: homeApi }, "not_found", { detail: homeApi });
        await tenant.fails("apis.deleteApi", { apiId: homeApi }, "not_found", { detail: homeApi });
      }
      expect(harness.writes.writes).toEqual([]);
      const tenantApi = (await via(name, rootKey.key).ok("apis.createApi", { name: "tenant-api" })).apiId;
      expect((await via(name, rootKey.key).ok("apis.getApi", { apiId: tenantApi })).name).toBe("tenant-api");
      await via(name).fails("apis.getApi", { apiId: tenantApi }, "not_found", { detail: tenantApi });
      expect((await via(name).ok("apis.getApi", { apiId: homeApi })).name).toBe("home-api");
    }
  });

  it("the new root key can itself create workspaces and root keys, each confined to its own workspace", async () => {
    const first = await harness.seed.workspace("parent-tenant");
    for (const name of V2_AND_RPC) {
      const nested = await via(name, first.rootKey.key).ok("workspaces.createWorkspace", { name: "child-tenant" });
      expect(nested.workspaceId).not.toBe(first.workspaceId);
      const minted = await via(name, first.rootKey.key).ok("rootKeys.createRootKey", { permissions: ["api.*.read_api"] });
      expect((await harness.keyward.documents.rootKeys.findByHash(hashKey(minted.key)))?.workspaceId).toBe(first.workspaceId);
    }
  });

  it("accepts names of 1 and 255 characters, any characters", async () => {
    for (const wsName of ["x", "n".repeat(255), "Acme GmbH & Co. KG"]) {
      const { workspaceId } = await via("grpc").ok("workspaces.createWorkspace", { name: wsName });
      expect((await harness.keyward.documents.workspaces.get(workspaceId))?.name).toBe(wsName);
    }
  });
});
