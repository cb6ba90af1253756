import { describe, expect, it } from "vitest";
import { dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.whoami", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  async function seeded() {
    const apiId = await harness.seed.api({ name: "whoami" });
    const { keyId, key } = await harness.seed.key(apiId, {
      prefix: "who", name: "mine", meta: { team: "core" }, environment: "dev", externalId: "who_1", credits: { remaining: 5 },
    });
    const identityId = (await keyState(harness, keyId)).record?.identityId;
    return { apiId, keyId, key, identityId };
  }

  it("v2 names the key by its secret and answers the same KeyResponseData as getKey, on v2 and the RPC protocols", async () => {
    const k = await seeded();
    const byId = dataOf("keys.getKey", await via("v2").call("keys.getKey", { keyId: k.keyId }));
    expect(byId).toMatchObject({ keyId: k.keyId, name: "mine", credits: { remaining: 5 }, identity: { id: k.identityId, externalId: "who_1" } });
    for (const name of V2_AND_RPC) expect(dataOf("keys.whoami", await via(name).call("keys.whoami", { key: k.key }))).toEqual(byId);
  });

  it("v1 answers {id, name, remaining, identity, meta, createdAt, enabled, environment}", async () => {
    const k = await seeded();
    const response = await harness.rest.v1Post("keys.whoami", { key: k.key }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: k.keyId, name: "mine", remaining: 5, identity: { id: k.identityId, externalId: "who_1" }, meta: { team: "core" },
      createdAt: harness.clock.now(), enabled: true, environment: "dev",
    });
  });

  it("spends no credit and writes nothing, and still names a disabled or expired key", async () => {
    const k = await seeded();
    await harness.rest.v2("keys.updateKey", { keyId: k.keyId, enabled: false, expires: harness.clock.now() - 1 }, harness.keyward.rootKey);
    expect(await verifyCode(harness, k.key)).toBe("DISABLED");
    const before = await keyState(harness, k.keyId);
    harness.writes.clear();
    for (const name of ALL_VIAS) {
      const who = dataOf("keys.whoami", await via(name).call("keys.whoami", { key: k.key }));
      expect({ name, id: who.keyId ?? who.id, enabled: who.enabled }).toEqual({ name, id: k.keyId, enabled: false });
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await keyState(harness, k.keyId)).toEqual(before);
    expect(before.remaining).toBe(5);
  });

  it("serves a root key holding read_key for exactly the key's api", async () => {
    const k = await seeded();
    const { key: reader } = await harness.seed.rootKey([`api.${k.apiId}.read_key`]);
    for (const name of ALL_VIAS) {
      const who = dataOf("keys.whoami", await via(name, reader).call("keys.whoami", { key: k.key }));
      expect(who.keyId ?? who.id).toBe(k.keyId);
    }
  });
});
