import { describe, expect, it } from "vitest";
import { counterTag } from "../../../src/domain/verification.js";
import { apiKeys, dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, requestIdOf, viaClient } from "../../support/vias.js";

describe("apis.deleteKeys", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);
  /** Keys are deleted in id order (ids minted in one millisecond of the manual clock are not in creation order). */
  const byId = <T extends { keyId: string }>(keys: T[]) => [...keys].sort((a, b) => (a.keyId < b.keyId ? -1 : 1));
  const balance = (keyId: string, identityId?: string) => harness.keyward.stores.counters.readCredits(counterTag({ keyId, identityId }), keyId);

  it("soft-deletes every live key of the api on every transport: the count answered, verify NOT_FOUND, balances gone, other apis untouched", async () => {
    const bystanderApi = await harness.seed.api({ name: "bystander" });
    const bystander = await harness.seed.key(bystanderApi, { credits: { remaining: 9 } });
    for (const name of ALL_VIAS) {
      const apiId = await harness.seed.api({ name: `soft-${name}` });
      const keys = [
        await harness.seed.key(apiId, { credits: { remaining: 5 } }),
        await harness.seed.key(apiId, { externalId: `owner-${name}`, credits: { remaining: 2 } }),
        await harness.seed.key(apiId),
      ];
      const identityId = (await keyState(harness, keys[1].keyId)).record?.identityId;
      expect(await verifyCode(harness, keys[0].key)).toBe("VALID"); // cached from here on
      harness.writes.clear();
      expect(dataOf("apis.deleteKeys", await via(name).call("apis.deleteKeys", { apiId }))).toEqual({ deletedKeys: 3 });
      expect(harness.writes.writes).toEqual(byId(keys).map(({ keyId }) => ({ call: "keys.markDeleted", id: keyId })));
      for (const { key } of keys) expect(await verifyCode(harness, key)).toBe("NOT_FOUND");
      expect(await balance(keys[0].keyId)).toBeUndefined();
      expect(await balance(keys[1].keyId, identityId)).toBeUndefined();
      expect(await apiKeys(harness, apiId)).toEqual([]);
      await via(name).fails("keys.getKey", { keyId: keys[2].keyId }, "not_found");
      // The api itself stays, empty.
      expect(dataOf("apis.listKeys", await via("v2").call("apis.listKeys", { apiId }))).toEqual([]);
      expect((await via("v2").ok("apis.getApi", { apiId })).id).toBe(apiId);
    }
    expect(await verifyCode(harness, bystander.key)).toBe("VALID");
    expect(await balance(bystander.keyId)).toBe(8);
  });

  it("answers Unkey's shapes: v1 {deletedKeys}, v2 the envelope; an api without keys answers 0 and writes nothing, not even an audit record", async () => {
    const apiId = await harness.seed.api({ name: "shapes" });
    await harness.seed.key(apiId);
    await harness.seed.key(apiId);
    const v1 = await harness.rest.v1Post("apis.deleteKeys", { apiId }, harness.keyward.rootKey);
    expect({ status: v1.status, body: v1.body }).toEqual({ status: 200, body: { deletedKeys: 2 } });
    harness.writes.clear();
    const { keyId: actor, key: rootKey } = await harness.seed.rootKey(["api.*.delete_key"]);
    const v2 = await harness.rest.v2("apis.deleteKeys", { apiId, permanent: false }, rootKey);
    expect({ status: v2.status, body: v2.body }).toEqual({ status: 200, body: { meta: { requestId: v2.headers.get("x-request-id") }, data: { deletedKeys: 0 } } });
    expect(harness.writes.writes.filter((w) => w.call !== "rootKeys.insert")).toEqual([]);
    // Nothing changed, so no audit record either.
    expect((await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data).toEqual([]);
  });

  it("permanent: true erases every record on every transport, those of keys soft-deleted earlier too, counting them (as Unkey)", async () => {
    for (const name of ALL_VIAS) {
      const apiId = await harness.seed.api({ name: `permanent-${name}` });
      const earlier = await harness.seed.key(apiId);
      await via("v2").ok("keys.deleteKey", { keyId: earlier.keyId });
      const keys = [await harness.seed.key(apiId, { credits: { remaining: 1 } }), await harness.seed.key(apiId)];
      harness.writes.clear();
      expect(dataOf("apis.deleteKeys", await via(name).call("apis.deleteKeys", { apiId, permanent: true }))).toEqual({ deletedKeys: 3 });
      // The live keys first, then the soft-deleted one.
      expect(harness.writes.writes).toEqual([...byId(keys), earlier].map(({ keyId }) => ({ call: "keys.erase", id: keyId })));
      expect(await harness.keyward.documents.keys.listByApi(harness.keyward.workspaceId, apiId, { limit: 10, deleted: true })).toEqual([]);
      for (const { key } of keys) expect(await verifyCode(harness, key)).toBe("NOT_FOUND");
      expect(await balance(keys[0].keyId)).toBeUndefined();
      // Erased: not even a deleted record is left to delete again.
      await via("v2").fails("keys.deleteKey", { keyId: keys[1].keyId, permanent: true }, "not_found");
    }
  });

  it("deletes more keys than one page (250) and counts them all", async () => {
    const apiId = await harness.seed.api({ name: "many" });
    for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 25 }, () => harness.seed.key(apiId)));
    expect((await apiKeys(harness, apiId)).length).toBe(250);
    expect(await via("grpc").ok("apis.deleteKeys", { apiId })).toMatchObject({ deletedKeys: 250n });
    expect(await apiKeys(harness, apiId)).toEqual([]);
  });

  it("serves a root key holding delete_key for exactly this api", async () => {
    for (const name of ALL_VIAS) {
      const apiId = await harness.seed.api({ name: `scoped-${name}` });
      const { key: deleter } = await harness.seed.rootKey([`api.${apiId}.delete_key`]);
      const { keyId } = await harness.seed.key(apiId);
      expect(dataOf("apis.deleteKeys", await via(name, deleter).call("apis.deleteKeys", { apiId }))).toEqual({ deletedKeys: 1 });
      expect(await keyState(harness, keyId)).toEqual({});
    }
  });

  it("writes one key.delete audit record per deleted key, all with the call's request id, on every transport", async () => {
    for (const name of ALL_VIAS) {
      const apiId = await harness.seed.api({ name: `audited-${name}` });
      const keyIds = byId([await harness.seed.key(apiId), await harness.seed.key(apiId), await harness.seed.key(apiId)]).map((k) => k.keyId);
      const { keyId: actor, key: rootKey } = await harness.seed.rootKey([`api.${apiId}.delete_key`]);
      const outcome = await via(name, rootKey).call("apis.deleteKeys", { apiId });
      expect(dataOf("apis.deleteKeys", outcome)).toEqual({ deletedKeys: 3 });
      const records = (await harness.rest.v2("auditLogs.list", { actor }, harness.keyward.rootKey)).body.data;
      expect(records.map((r: any) => ({ action: r.action, requestId: r.requestId, resources: r.resources }))).toEqual(
        keyIds.map((id) => ({ action: "key.delete", requestId: requestIdOf(outcome), resources: [{ type: "key", id }] })),
      );
    }
  });
});
