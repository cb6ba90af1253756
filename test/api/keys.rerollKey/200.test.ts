import { describe, expect, it } from "vitest";
import { dataOf, keyState, verifyCode } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";
import { V2_AND_RPC, viaClient } from "../../support/vias.js";

describe("keys.rerollKey", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number]) => viaClient(harness.keyward.baseUrl, name, harness.keyward.rootKey);
  const getKey = async (keyId: string) => (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;

  async function seeded(apiName: string) {
    const apiId = await harness.seed.api({ name: apiName });
    const created = await harness.seed.key(apiId, {
      prefix: "sk_test", name: "rolled", meta: { tier: "gold" }, environment: "live", externalId: "roller", enabled: true,
      permissions: ["a.read"], roles: ["reader"],
      credits: { remaining: 10, refill: { interval: "daily", amount: 10 } },
      ratelimits: [{ name: "requests", limit: 50, duration: 60_000, autoApply: true }],
    });
    // Spend some, so the carried balance is the current one rather than the initial one.
    for (let i = 0; i < 3; i++) expect(await verifyCode(harness, created.key)).toBe("VALID");
    return { apiId, ...created };
  }

  it("answers {keyId, key} for a new key: v2 envelope and RPC message", async () => {
    const { keyId } = await seeded("shape");
    const response = await harness.rest.v2("keys.rerollKey", { keyId, expiration: 60_000 }, harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { requestId: response.headers.get("x-request-id") },
      data: { keyId: expect.stringMatching(/^key_/), key: expect.stringMatching(/^sk_test_[1-9A-HJ-NP-Za-km-z]+$/) },
    });
    expect(response.body.data.keyId).not.toBe(keyId);
  });

  it("with expiration 0 the new key verifies and the old one stops at once, on v2 and the RPC protocols", async () => {
    for (const name of V2_AND_RPC) {
      const old = await seeded(`now-${name.toLowerCase()}`);
      const rolled = dataOf("keys.rerollKey", await via(name).call("keys.rerollKey", { keyId: old.keyId, expiration: 0 }));
      expect(rolled.keyId).not.toBe(old.keyId);
      expect(rolled.key).not.toBe(old.key);
      expect(await verifyCode(harness, old.key)).toBe("NOT_FOUND");
      expect(await verifyCode(harness, rolled.key)).toBe("VALID");
      await via(name).fails("keys.getKey", { keyId: old.keyId }, "not_found");
    }
  });

  it("with expiration > 0 the old key keeps verifying until exactly that many ms have passed", async () => {
    for (const name of V2_AND_RPC) {
      const old = await seeded(`later-${name.toLowerCase()}`);
      const start = harness.clock.now();
      const rolled = dataOf("keys.rerollKey", await via(name).call("keys.rerollKey", { keyId: old.keyId, expiration: 3_600_000 }));
      expect((await getKey(old.keyId)).expires).toBe(start + 3_600_000);
      expect(await verifyCode(harness, old.key)).toBe("VALID");
      harness.clock.set(start + 3_599_999);
      expect(await verifyCode(harness, old.key)).toBe("VALID");
      harness.clock.set(start + 3_600_000);
      expect(await verifyCode(harness, old.key)).toBe("EXPIRED");
      expect(await verifyCode(harness, rolled.key)).toBe("VALID");
    }
  });

  it("an original expiring sooner than the grace period keeps its own expiry", async () => {
    const apiId = await harness.seed.api({ name: "sooner" });
    const expires = harness.clock.now() + 1000;
    const { keyId } = await harness.seed.key(apiId, { expires });
    const rolled = dataOf("keys.rerollKey", await via("v2").call("keys.rerollKey", { keyId, expiration: 86_400_000 }));
    expect((await getKey(keyId)).expires).toBe(expires);
    // The new key carries the original's settings, its expiry included.
    expect((await getKey(rolled.keyId)).expires).toBe(expires);
  });

  it("carries every setting to the new key: name, meta, identity, permissions, roles, environment, the balance left, refill and limits", async () => {
    for (const name of V2_AND_RPC) {
      const old = await seeded(`carry-${name.toLowerCase()}`);
      const before = await getKey(old.keyId);
      harness.clock.advance(5);
      const rolled = dataOf("keys.rerollKey", await via(name).call("keys.rerollKey", { keyId: old.keyId, expiration: 60_000 }));
      const after = await getKey(rolled.keyId);
      const limits = (data: { ratelimits: { id: string }[] }) => data.ratelimits.map(({ id: _id, ...limit }) => limit);
      // The new key was never verified: no lastUsedAt, whatever the old one's.
      const { keyId: _a, start: _b, createdAt: _c, updatedAt: _d, expires: _e, ratelimits: _f, lastUsedAt: _u, ...settings } = before;
      const { ratelimits: _g, ...rest } = after;
      expect(rest).toEqual({ ...settings, keyId: rolled.keyId, start: rolled.key.slice(0, "sk_test_".length + 4), createdAt: harness.clock.now() });
      expect(limits(after)).toEqual(limits(before));
      expect(limits(after)).toEqual([{ name: "requests", limit: 50, duration: 60_000, autoApply: true }]);
      expect(after.credits).toEqual({ remaining: 7, refill: { interval: "daily", amount: 10 } });
      expect(after.identity.externalId).toBe("roller");
      // The new key spends its own balance.
      expect(await verifyCode(harness, rolled.key)).toBe("VALID");
      expect((await keyState(harness, rolled.keyId)).remaining).toBe(6);
    }
  });

  it("both keys are listed while the old one is in its grace period", async () => {
    const old = await seeded("listing");
    harness.clock.advance(1);
    const rolled = dataOf("keys.rerollKey", await via("v2").call("keys.rerollKey", { keyId: old.keyId, expiration: 60_000 }));
    const listed = dataOf("apis.listKeys", await viaClient(harness.keyward.baseUrl, "v2", harness.keyward.rootKey).call("apis.listKeys", { apiId: old.apiId }));
    expect(listed.map((k: { keyId: string }) => k.keyId)).toEqual([old.keyId, rolled.keyId]);
  });
});
