import { describe, expect, it } from "vitest";
import { dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.getKey", () => {
  const harness = useKeyward();
  const via = (name: (typeof ALL_VIAS)[number], rootKey = harness.keyward.rootKey) => viaClient(harness.keyward.baseUrl, name, rootKey);

  /** A key with every setting, spent down by one verification. */
  async function richKey() {
    const apiId = await harness.seed.api({ name: "rich" });
    const expires = harness.clock.now() + 7 * 86_400_000;
    const { keyId, key } = await harness.seed.key(apiId, {
      prefix: "rich", name: "rich key", meta: { plan: "pro", limits: { seats: 5 } }, expires, environment: "production",
      externalId: "customer_9", permissions: ["files.read"], roles: ["viewer"],
      credits: { remaining: 50, refill: { interval: "monthly", amount: 50, refillDay: 28 } },
      ratelimits: [
        { name: "default", limit: 100, duration: 60_000, autoApply: true },
        { name: "tokens", limit: 5000, duration: 3_600_000 },
      ],
    });
    expect(await verifyCode(harness, key)).toBe("VALID");
    await harness.keyward.stores.events.flush(); // its event written: lastUsedAt shows the verification
    const { record } = await keyState(harness, keyId);
    return { apiId, keyId, key, expires, identityId: record?.identityId as string, limitIds: record?.ratelimits.map((l) => l.id) as string[] };
  }

  it("v2 answers the envelope with KeyResponseData: every setting, the identity and the balance left", async () => {
    const k = await richKey();
    const response = await harness.rest.v2("keys.getKey", { keyId: k.keyId }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: response.headers.get("x-request-id") },
      data: {
        keyId: k.keyId, start: k.key.slice(0, 9), apiId: k.apiId, workspaceId: harness.keyward.workspaceId, name: "rich key",
        meta: { plan: "pro", limits: { seats: 5 } }, createdAt: harness.clock.now(), expires: k.expires, enabled: true,
        lastUsedAt: harness.clock.now(),
        credits: { remaining: 49, refill: { interval: "monthly", amount: 50, refillDay: 28 } },
        ratelimits: [
          { id: k.limitIds[0], name: "default", limit: 100, duration: 60_000, autoApply: true },
          { id: k.limitIds[1], name: "tokens", limit: 5000, duration: 3_600_000, autoApply: false },
        ],
        identity: { id: k.identityId, externalId: "customer_9", meta: {}, ratelimits: [] },
        permissions: ["files.read"], roles: ["viewer"], environment: "production",
      },
    });
  });

  it("Connect, gRPC and gRPC-Web return the same key as v2", async () => {
    const k = await richKey();
    const v2 = dataOf("keys.getKey", await via("v2").call("keys.getKey", { keyId: k.keyId }));
    for (const name of V2_AND_RPC) expect(dataOf("keys.getKey", await via(name).call("keys.getKey", { keyId: k.keyId }))).toEqual(v2);
  });

  it("v1 answers GET with the query keyId and the bare v1 Key: ownerId, remaining, refill and the default limit as ratelimit", async () => {
    const k = await richKey();
    const response = await harness.rest.v1Get("keys.getKey", { keyId: k.keyId }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: k.keyId, start: k.key.slice(0, 9), workspaceId: harness.keyward.workspaceId, apiId: k.apiId, name: "rich key",
      ownerId: "customer_9", meta: { plan: "pro", limits: { seats: 5 } }, createdAt: harness.clock.now(), expires: k.expires,
      lastUsedAt: harness.clock.now(),
      remaining: 49, refill: { interval: "monthly", amount: 50, refillDay: 28 },
      ratelimit: { async: false, limit: 100, duration: 60_000 },
      roles: ["viewer"], permissions: ["files.read"], enabled: true,
      identity: { id: k.identityId, externalId: "customer_9", meta: {} }, environment: "production",
    });
  });

  it("an unlimited key has no credits in v2 and no remaining or refill in v1", async () => {
    const apiId = await harness.seed.api({ name: "unlimited" });
    const { keyId, key } = await harness.seed.key(apiId);
    expect(await verifyCode(harness, key)).toBe("VALID");
    await harness.keyward.stores.events.flush();
    const v2 = dataOf("keys.getKey", await via("v2").call("keys.getKey", { keyId }));
    expect(v2).toEqual({
      keyId, start: key.slice(0, 4), apiId, workspaceId: harness.keyward.workspaceId, createdAt: harness.clock.now(),
      enabled: true, ratelimits: [], permissions: [], roles: [], lastUsedAt: harness.clock.now(),
    });
    const v1 = dataOf("keys.getKey", await via("v1").call("keys.getKey", { keyId }));
    expect(v1).toEqual({
      id: keyId, start: key.slice(0, 4), workspaceId: harness.keyward.workspaceId, apiId, createdAt: harness.clock.now(),
      roles: [], permissions: [], enabled: true, lastUsedAt: harness.clock.now(),
    });
  });

  it("a limited key with nothing left shows credits.remaining 0 in v2 and remaining 0 in v1", async () => {
    const apiId = await harness.seed.api({ name: "spent" });
    const { keyId, key } = await harness.seed.key(apiId, { credits: { remaining: 1 } });
    expect([await verifyCode(harness, key), await verifyCode(harness, key)]).toEqual(["VALID", "USAGE_EXCEEDED"]);
    expect(dataOf("keys.getKey", await via("v2").call("keys.getKey", { keyId })).credits).toEqual({ remaining: 0 });
    expect(dataOf("keys.getKey", await via("v1").call("keys.getKey", { keyId })).remaining).toBe(0);
    expect(dataOf("keys.getKey", await via("grpc").call("keys.getKey", { keyId })).credits).toEqual({ remaining: 0 });
  });

  it("serves a root key holding read_key for exactly this api on every transport, and writes nothing", async () => {
    const k = await richKey();
    const { key: reader } = await harness.seed.rootKey([`api.${k.apiId}.read_key`]);
    harness.writes.clear();
    const before = await keyState(harness, k.keyId);
    for (const name of ALL_VIAS) {
      const got = dataOf("keys.getKey", await via(name, reader).call("keys.getKey", { keyId: k.keyId }));
      expect(got.keyId ?? got.id).toBe(k.keyId);
      expect(got.plaintext).toBeUndefined();
    }
    expect(harness.writes.writes).toEqual([]);
    expect(await keyState(harness, k.keyId)).toEqual(before);
  });
});
