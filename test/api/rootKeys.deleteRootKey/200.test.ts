import { describe, expect, it } from "vitest";
import { hashKey } from "../../../src/domain/key-material.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("rootKeys.deleteRootKey", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("revokes the key: it answers 401 on every transport from then on, and leaves the listing", async () => {
    for (const name of V2_AND_RPC) {
      const { keyId, key } = await harness.seed.rootKey(["api.*.create_api", "api.*.read_api"]);
      const apiId = await harness.seed.api({ name: "probe", by: key });
      harness.clock.advance(1_000);
      harness.writes.clear();
      await via(name).ok("rootKeys.deleteRootKey", { keyId });
      expect(harness.writes.writes).toEqual([{ call: "rootKeys.markDeleted", id: keyId }]);
      expect(await harness.keyward.documents.rootKeys.findByHash(hashKey(key))).toMatchObject({ id: keyId, deletedAt: harness.clock.now() });
      for (const other of ALL_VIAS) {
        await via(other, key).fails("apis.getApi", { apiId }, "unauthenticated", { detail: "The root key is unknown or revoked" });
        await via(other, key).fails("apis.createApi", { name: "after-revoke" }, "unauthenticated");
      }
      const listed = await via("v2").ok("rootKeys.listRootKeys", {});
      expect(listed.map((k: { keyId: string }) => k.keyId)).not.toContain(keyId);
      // What the key made survives it.
      expect((await via("v2").ok("apis.getApi", { apiId })).name).toBe("probe");
    }
  });

  it("answers v2 with exactly {meta:{requestId}, data:{}}", async () => {
    const { keyId } = await harness.seed.rootKey(["api.*.read_api"]);
    const response = await harness.rest.v2("rootKeys.deleteRootKey", { keyId }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ meta: { requestId: response.headers.get("x-request-id") }, data: {} });
  });

  it("a second delete of the same key answers 404 and writes nothing", async () => {
    for (const name of V2_AND_RPC) {
      const { keyId } = await harness.seed.rootKey(["api.*.read_api"]);
      await via(name).ok("rootKeys.deleteRootKey", { keyId });
      harness.writes.clear();
      await via(name).fails("rootKeys.deleteRootKey", { keyId }, "not_found", { detail: keyId });
      expect(harness.writes.writes).toEqual([]);
    }
  });

  it("a root key may revoke itself; its next call is 401", async () => {
    for (const name of V2_AND_RPC) {
      const self = await harness.seed.rootKey(["rootkey.*.delete_root_key", "rootkey.*.read_root_key"]);
      await via(name, self.key).ok("rootKeys.deleteRootKey", { keyId: self.keyId });
      await via(name, self.key).fails("rootKeys.listRootKeys", {}, "unauthenticated", { detail: "unknown or revoked" });
    }
  });

  it("deletes only the named key: the caller and other keys keep working", async () => {
    const doomed = await harness.seed.rootKey(["api.*.create_api"]);
    const bystander = await harness.seed.rootKey(["api.*.create_api"]);
    await via("grpcWeb").ok("rootKeys.deleteRootKey", { keyId: doomed.keyId });
    for (const name of ALL_VIAS) {
      expect((await via(name, bystander.key).ok("apis.createApi", { name: "still-works" })).apiId).toMatch(/^api_/);
      expect((await via(name).ok("apis.createApi", { name: "caller-works" })).apiId).toMatch(/^api_/);
    }
  });

  it("a key of another workspace answers 404 and stays valid", async () => {
    const other = await harness.seed.workspace("delete-root-other");
    for (const name of V2_AND_RPC) {
      harness.writes.clear();
      await via(name).fails("rootKeys.deleteRootKey", { keyId: other.rootKey.keyId }, "not_found", { detail: other.rootKey.keyId });
      expect(harness.writes.writes).toEqual([]);
    }
    expect((await via("connect", other.rootKey.key).ok("rootKeys.listRootKeys", {})).data.map((k: { keyId: string }) => k.keyId))
      .toEqual([other.rootKey.keyId]);
  });
});
