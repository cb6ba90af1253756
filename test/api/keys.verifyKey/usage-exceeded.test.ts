import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey USAGE_EXCEEDED", () => {
  const kit = useVerifyKit();

  it("answers USAGE_EXCEEDED with the key's data and a balance of 0 once the credits are used, on every door", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { name: "metered", credits: { remaining: 2 } });
    expect((await kit.verify("v2", { key })).credits).toBe(1);
    expect((await kit.verify("legacy", { key })).credits).toBe(0);
    for (const via of VERIFY_VIAS) {
      for (let i = 0; i < 2; i++) {
        const result = await kit.verify(via, { key, apiId });
        expect({ via, code: result.code, valid: result.valid, keyId: result.payload.keyId, name: result.payload.name, credits: result.credits })
          .toEqual({ via, code: "USAGE_EXCEEDED", valid: false, keyId, name: "metered", credits: 0 });
      }
    }
    expect(await kit.admin.balance(keyId)).toBe(0);
    const v2 = await kit.verify("v2", { key });
    expect(v2.payload).toEqual({
      valid: false, code: "USAGE_EXCEEDED", keyId, name: "metered", credits: 0, enabled: true, permissions: [], roles: [], ratelimits: [],
    });
  });

  it("refuses a cost above the balance without deducting anything, then accepts a cost equal to it", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 3 } });
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, cost: 5 });
      expect({ via, code: result.code, credits: result.credits }).toEqual({ via, code: "USAGE_EXCEEDED", credits: 3 });
      const four = await kit.verify(via, { key, cost: 4 });
      expect({ via, code: four.code, credits: four.credits }).toEqual({ via, code: "USAGE_EXCEEDED", credits: 3 });
    }
    expect(await kit.admin.balance(keyId)).toBe(3);
    const exact = await kit.verify("v1", { key, cost: 3 });
    expect({ code: exact.code, credits: exact.credits }).toEqual({ code: "VALID", credits: 0 });
    expect(await kit.admin.balance(keyId)).toBe(0);
  });

  it("counts no rate limit while refusing for credits", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 1 }, ratelimits: [{ name: "minute", limit: 5, duration: MINUTE, autoApply: true }] });
    expect((await kit.verify("v1", { key })).payload.ratelimit).toEqual({ limit: 5, remaining: 4, reset: start + MINUTE });
    for (let i = 0; i < 3; i++) {
      const result = await kit.verify("v1", { key });
      expect({ code: result.code, remaining: result.credits, ratelimit: result.payload.ratelimit })
        .toEqual({ code: "USAGE_EXCEEDED", remaining: 0, ratelimit: { limit: 5, remaining: 4, reset: start + MINUTE } });
    }
    await kit.admin.ok("keys.updateCredits", { keyId, operation: "increment", value: 1 });
    const after = await kit.verify("v1", { key });
    expect({ code: after.code, remaining: after.credits, ratelimit: after.payload.ratelimit })
      .toEqual({ code: "VALID", remaining: 0, ratelimit: { limit: 5, remaining: 3, reset: start + MINUTE } });
  });

  it("verifies again once credits are topped up through v1 keys.updateRemaining", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 0 } });
    expect((await kit.verify("v1", { key })).code).toBe("USAGE_EXCEEDED");
    const set = await kit.harness.rest.v1Post("keys.updateRemaining", { keyId, op: "set", value: 2 }, kit.harness.keyward.rootKey);
    expect({ status: set.status, body: set.body }).toEqual({ status: 200, body: { remaining: 2 } });
    expect((await kit.verify("v1", { key })).credits).toBe(1);
    const unlimited = await kit.harness.rest.v1Post("keys.updateRemaining", { keyId, op: "set", value: null }, kit.harness.keyward.rootKey);
    expect({ status: unlimited.status, body: unlimited.body }).toEqual({ status: 200, body: { remaining: null } });
    const free = await kit.verify("v1", { key, cost: 100 });
    expect({ code: free.code, credits: free.credits }).toEqual({ code: "VALID", credits: undefined });
  });

  it("enforces `remaining` of the legacy POST /v1/keys", async () => {
    const apiId = await kit.admin.api();
    const created = await kit.harness.rest.v1Post("keys", { apiId, remaining: 1 }, kit.harness.keyward.rootKey);
    expect(created.status).toBe(200);
    const first = await kit.verify("legacy", { key: created.body.key, apiId });
    const second = await kit.verify("legacy", { key: created.body.key, apiId });
    expect([[first.code, first.credits], [second.code, second.credits]]).toEqual([["VALID", 0], ["USAGE_EXCEEDED", 0]]);
  });
});
