import { describe, expect, it } from "vitest";
import { hashKey } from "../../../src/domain/key-material.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, V2_AND_RPC, viaClient } from "../../support/vias.js";

const KEY_ID = /^key_[1-9A-HJ-NP-Za-km-z]{22}$/;
const ROOT_KEY = /^kw_root_[1-9A-HJ-NP-Za-km-z]{40,44}$/;

describe("rootKeys.createRootKey", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("returns a new kw_root_ key once and stores only its hash, with the permissions, name and expiry given", async () => {
    for (const name of V2_AND_RPC) {
      harness.clock.advance(1_000);
      const expires = harness.clock.now() + 86_400_000;
      const created = await via(name).ok("rootKeys.createRootKey", {
        name: `ci-${name}`, permissions: ["api.*.read_api", "api.*.create_api"], expires,
      });
      expect(created.keyId).toMatch(KEY_ID);
      expect(created.key).toMatch(ROOT_KEY);
      const record = await harness.keyward.documents.rootKeys.findByHash(hashKey(created.key));
      expect(record).toEqual({
        id: created.keyId,
        workspaceId: harness.keyward.workspaceId,
        name: `ci-${name}`,
        hash: hashKey(created.key),
        start: created.key.slice(0, "kw_root_".length + 4),
        permissions: ["api.*.read_api", "api.*.create_api"],
        createdAt: harness.clock.now(),
        expiresAt: expires,
      });
      expect(JSON.stringify(record)).not.toContain(created.key);
    }
  });

  it("answers v2 with exactly {meta:{requestId}, data:{keyId, key}}", async () => {
    const response = await harness.rest.v2("rootKeys.createRootKey", { permissions: ["api.*.read_api"] }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: { keyId: expect.stringMatching(KEY_ID), key: expect.stringMatching(ROOT_KEY) },
    });
  });

  it("the new key authenticates and holds exactly the permissions given: granted calls pass, others get 403", async () => {
    for (const name of V2_AND_RPC) {
      const { key } = await via(name).ok("rootKeys.createRootKey", { permissions: ["api.*.create_api", "api.*.read_api"] });
      const narrow = via(name, key);
      const { apiId } = await narrow.ok("apis.createApi", { name: "made-by-narrow" });
      expect((await narrow.ok("apis.getApi", { apiId })).name).toBe("made-by-narrow");
      harness.writes.clear();
      await narrow.fails("apis.deleteApi", { apiId }, "forbidden", { detail: "Missing permission: api.*.delete_api" });
      await narrow.fails("apis.listKeys", { apiId }, "forbidden", { detail: "Missing permission: api.*.read_key" });
      await narrow.fails("rootKeys.listRootKeys", {}, "forbidden", { detail: "Missing permission: rootkey.*.read_root_key" });
      await narrow.fails("rootKeys.createRootKey", { permissions: ["api.*.read_api"] }, "forbidden", {
        detail: "Missing permission: rootkey.*.create_root_key",
      });
      expect(harness.writes.writes).toEqual([]);
      expect((await via(name).ok("apis.getApi", { apiId })).id).toBe(apiId);
    }
  });

  it("a key holding api.<id>.read_api reads that api and gets 403 for any other", async () => {
    const mine = await harness.seed.api({ name: "mine" });
    const theirs = await harness.seed.api({ name: "theirs" });
    for (const name of V2_AND_RPC) {
      const { key } = await via(name).ok("rootKeys.createRootKey", { permissions: [`api.${mine}.read_api`] });
      expect((await via(name, key).ok("apis.getApi", { apiId: mine })).name).toBe("mine");
      await via(name, key).fails("apis.getApi", { apiId: theirs }, "forbidden", { detail: `api.${theirs}.read_api` });
    }
  });

  it("a root key may grant a subset of what it holds, and the grandchild works", async () => {
    const parent = await harness.seed.rootKey(["rootkey.*.create_root_key", "api.*.read_api", "api.*.create_api"]);
    for (const name of V2_AND_RPC) {
      const child = await via(name, parent.key).ok("rootKeys.createRootKey", { permissions: ["api.*.create_api"] });
      const { apiId } = await via(name, child.key).ok("apis.createApi", { name: "grandchild-api" });
      await via(name, child.key).fails("apis.getApi", { apiId }, "forbidden", { detail: "api.*.read_api" });
    }
  });

  it("stores a permission named twice once", async () => {
    for (const name of V2_AND_RPC) {
      const { key } = await via(name).ok("rootKeys.createRootKey", { permissions: ["api.*.read_api", "api.*.read_api"] });
      expect((await harness.keyward.documents.rootKeys.findByHash(hashKey(key)))?.permissions).toEqual(["api.*.read_api"]);
    }
  });

  it("creates keys in the caller's workspace: a second workspace's key mints keys that act only there", async () => {
    const other = await harness.seed.workspace("mint-other");
    const homeApi = await harness.seed.api({ name: "home" });
    for (const name of V2_AND_RPC) {
      const { key } = await via(name, other.rootKey.key).ok("rootKeys.createRootKey", { permissions: ["api.*.read_api"] });
      expect((await harness.keyward.documents.rootKeys.findByHash(hashKey(key)))?.workspaceId).toBe(other.workspaceId);
      await via(name, key).fails("apis.getApi", { apiId: homeApi }, "not_found");
    }
  });
});
