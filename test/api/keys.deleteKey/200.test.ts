import { describe, expect, it } from "vitest";
import { counterTag } from "../../../src/domain/verification.js";
import { apiKeys, dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, viaClient } from "../../support/vias.js";

describe("keys.deleteKey", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  it("soft-deletes on every transport: verify answers NOT_FOUND at once, getKey and a second delete 404, listKeys leaves it out", async () => {
    const apiId = await harness.seed.api({ name: "soft" });
    const survivor = await harness.seed.key(apiId, { name: "survivor" });
    for (const name of ALL_VIAS) {
      const { keyId, key } = await harness.seed.key(apiId, { name: `doomed-${name}`, credits: { remaining: 5 } });
      expect(await verifyCode(harness, key)).toBe("VALID"); // cached from here on
      harness.writes.clear();
      const answer = dataOf("keys.deleteKey", await via(name).call("keys.deleteKey", { keyId }));
      expect(answer).toEqual({});
      expect(harness.writes.writes).toEqual([{ call: "keys.markDeleted", id: keyId }]);
      expect(await verifyCode(harness, key)).toBe("NOT_FOUND");
      for (const reader of ALL_VIAS) {
        await via(reader).fails("keys.getKey", { keyId }, "not_found", { detail: `The key ${keyId} does not exist.` });
        await via(reader).fails("keys.deleteKey", { keyId }, "not_found", { detail: `The key ${keyId} does not exist.` });
        await via(reader).fails("keys.whoami", { key }, "not_found");
      }
      const v1List = dataOf("apis.listKeys", await via("v1").call("apis.listKeys", { apiId }));
      expect({ ids: v1List.keys.map((k: { id: string }) => k.id), total: v1List.total }).toEqual({ ids: [survivor.keyId], total: 1 });
      const v2List = dataOf("apis.listKeys", await via("v2").call("apis.listKeys", { apiId }));
      expect(v2List.map((k: { keyId: string }) => k.keyId)).toEqual([survivor.keyId]);
    }
    expect(await verifyCode(harness, survivor.key)).toBe("VALID");
  });

  it("the v2 answer is the envelope with empty data and v1's is {}", async () => {
    const apiId = await harness.seed.api({ name: "shapes" });
    const a = await harness.seed.key(apiId);
    const b = await harness.seed.key(apiId);
    const v2 = await harness.rest.v2("keys.deleteKey", { keyId: a.keyId }, harness.keyward.rootKey);
    expect({ status: v2.status, body: v2.body }).toEqual({ status: 200, body: { meta: { requestId: v2.headers.get("x-request-id") }, data: {} } });
    const v1 = await harness.rest.v1Post("keys.deleteKey", { keyId: b.keyId }, harness.keyward.rootKey);
    expect({ status: v1.status, body: v1.body }).toEqual({ status: 200, body: {} });
  });

  it("permanent: true erases the record and its balance on every transport; the key is gone everywhere", async () => {
    const apiId = await harness.seed.api({ name: "permanent" });
    for (const name of ALL_VIAS) {
      const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 5 }, externalId: `perm_${name}` });
      const identityId = (await keyState(harness, keyId)).record?.identityId as string;
      harness.writes.clear();
      expect(dataOf("keys.deleteKey", await via(name).call("keys.deleteKey", { keyId, permanent: true }))).toEqual({});
      expect(harness.writes.writes).toEqual([{ call: "keys.erase", id: keyId }]);
      expect(await harness.keyward.stores.counters.readCredits(counterTag({ keyId, identityId }), keyId)).toBeUndefined();
      expect(await verifyCode(harness, key)).toBe("NOT_FOUND");
      await via(name).fails("keys.getKey", { keyId }, "not_found");
      await via(name).fails("keys.deleteKey", { keyId, permanent: true }, "not_found");
    }
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });

  it("a soft-deleted key answers 404 to a later permanent delete, which writes nothing", async () => {
    const apiId = await harness.seed.api({ name: "twice" });
    const { keyId } = await harness.seed.key(apiId);
    await via("v2").ok("keys.deleteKey", { keyId });
    harness.writes.clear();
    for (const name of ALL_VIAS) await via(name).fails("keys.deleteKey", { keyId, permanent: true }, "not_found");
    expect(harness.writes.writes).toEqual([]);
  });

  it("serves a root key holding delete_key for exactly this api", async () => {
    const apiId = await harness.seed.api({ name: "scoped" });
    const { key: deleter } = await harness.seed.rootKey([`api.${apiId}.delete_key`]);
    for (const name of ALL_VIAS) {
      const { keyId } = await harness.seed.key(apiId);
      expect(dataOf("keys.deleteKey", await via(name, deleter).call("keys.deleteKey", { keyId }))).toEqual({});
      expect(await keyState(harness, keyId)).toEqual({});
    }
  });
});
