import { describe, expect, it } from "vitest";
import { apiKeys, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

// POST /v1/keys: the deprecated v1 create route, bound to the same CreateKey RPC as /v1/keys.createKey.
describe("keys.legacy (POST /v1/keys)", () => {
  const harness = useKeyward();
  const create = (body: unknown, rootKey = harness.keyward.rootKey) => harness.rest.v1Post("keys", body, rootKey);

  it("creates a key with a prefix of up to 8 characters and answers the bare {keyId, key}", async () => {
    const apiId = await harness.seed.api({ name: "legacy" });
    for (const prefix of ["a", "legacy_8"]) {
      const response = await create({ apiId, prefix, name: `p${prefix.length}`, byteLength: 24 });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(["key", "keyId"]);
      expect(response.body.key).toMatch(new RegExp(`^${prefix}_[1-9A-HJ-NP-Za-km-z]+$`));
      const { record } = await keyState(harness, response.body.keyId);
      expect(record).toMatchObject({ apiId, name: `p${prefix.length}`, start: response.body.key.slice(0, prefix.length + 5) });
      expect(await verifyCode(harness, response.body.key)).toBe("VALID");
    }
    expect(await apiKeys(harness, apiId)).toHaveLength(2);
  });

  it("turns the legacy ratelimit {type, limit, refillRate, refillInterval} into the auto-applied limit named default", async () => {
    const apiId = await harness.seed.api({ name: "legacy-limit" });
    const response = await create({ apiId, ratelimit: { type: "fast", limit: 2, refillRate: 2, refillInterval: 10_000 } });
    expect(response.status).toBe(200);
    const { keyId, key } = response.body;
    const v2 = await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey);
    expect(v2.body.data.ratelimits).toEqual([{ id: expect.stringMatching(/^rl_/), name: "default", limit: 2, duration: 10_000, autoApply: true }]);
    const v1 = await harness.rest.v1Get("keys.getKey", { keyId }, harness.keyward.rootKey);
    expect(v1.body.ratelimit).toEqual({ async: false, limit: 2, duration: 10_000 });
    expect([await verifyCode(harness, key), await verifyCode(harness, key), await verifyCode(harness, key)]).toEqual(["VALID", "VALID", "RATE_LIMITED"]);
    // The window is 10 s (sliding: the previous window still weighs in): two windows later the key verifies again.
    harness.clock.advance(20_000);
    expect(await verifyCode(harness, key)).toBe("VALID");
  });

  it("takes the v1 fields ownerId, meta, expires, remaining and refill (monthly defaulting to day 1)", async () => {
    const apiId = await harness.seed.api({ name: "legacy-fields" });
    const expires = harness.clock.now() + 3_600_000;
    const response = await create({
      apiId, ownerId: "legacy_owner", meta: { tier: "gold" }, expires, remaining: 7, refill: { interval: "monthly", amount: 7 },
    });
    expect(response.status).toBe(200);
    const v1 = await harness.rest.v1Get("keys.getKey", { keyId: response.body.keyId }, harness.keyward.rootKey);
    expect(v1.body).toMatchObject({
      id: response.body.keyId, apiId, ownerId: "legacy_owner", meta: { tier: "gold" }, expires, remaining: 7,
      refill: { interval: "monthly", amount: 7, refillDay: 1 },
    });
  });
});
