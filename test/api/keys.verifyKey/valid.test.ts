import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey VALID", () => {
  const kit = useVerifyKit();

  async function fullKey() {
    const { clock } = kit.harness;
    const start = toNextWindow(clock, MINUTE);
    const apiId = await kit.admin.api();
    const expires = start + 86_400_000;
    const { keyId, key } = await kit.admin.key(apiId, {
      name: "checkout", meta: { plan: "pro", seats: 3 }, externalId: "user_valid", expires,
      credits: { remaining: 10 }, ratelimits: [{ name: "minute", limit: 10, duration: MINUTE, autoApply: true }],
      permissions: ["docs.read", "docs.write"], roles: ["editor"], environment: "production",
    });
    const view = await kit.admin.get(keyId);
    return { apiId, keyId, key, expires, reset: start + MINUTE, view };
  }

  it("answers v2 with every field of the key, the credits left as a number and each limit's 8 fields", async () => {
    const { keyId, key, expires, reset, view } = await fullKey();
    const result = await kit.verify("v2", { key });
    expect(result.payload).toEqual({
      valid: true,
      code: "VALID",
      keyId,
      name: "checkout",
      meta: { plan: "pro", seats: 3 },
      expires,
      credits: 9,
      enabled: true,
      permissions: ["docs.read", "docs.write"],
      roles: ["editor"],
      identity: { id: view.identity.id, externalId: "user_valid", meta: {}, ratelimits: [] },
      ratelimits: [{
        exceeded: false, id: view.ratelimits[0].id, name: "minute", limit: 10, duration: MINUTE, reset,
        remaining: 9, autoApply: true,
      }],
    });
    expect(view.identity.id).toMatch(/^id_/);
    expect(view.ratelimits[0].id).toMatch(/^rl_/);
    expect(await kit.admin.balance(keyId)).toBe(9);
  });

  it("answers v1 with ratelimit {limit, remaining, reset}, remaining, ownerId, environment, identity and the requestId", async () => {
    const { apiId, keyId, key, expires, reset, view } = await fullKey();
    const result = await kit.verify("v1", { key, apiId });
    expect(result.payload).toEqual({
      keyId,
      valid: true,
      name: "checkout",
      ownerId: "user_valid",
      meta: { plan: "pro", seats: 3 },
      expires,
      ratelimit: { limit: 10, remaining: 9, reset },
      remaining: 9,
      code: "VALID",
      enabled: true,
      permissions: ["docs.read", "docs.write"],
      roles: ["editor"],
      environment: "production",
      identity: { id: view.identity.id, externalId: "user_valid", meta: {} },
      requestId: result.response.headers.get("x-request-id"),
    });
  });

  it("answers the legacy /v1/keys/verify with exactly its documented fields, createdAt included", async () => {
    const { apiId, keyId, key, expires, reset, view } = await fullKey();
    const result = await kit.verify("legacy", { key, apiId });
    expect(result.payload).toEqual({
      keyId,
      valid: true,
      name: "checkout",
      ownerId: "user_valid",
      meta: { plan: "pro", seats: 3 },
      createdAt: view.createdAt,
      expires,
      ratelimit: { limit: 10, remaining: 9, reset },
      remaining: 9,
      code: "VALID",
    });
  });

  it("verifies a key without apiId on v1 and legacy, and one without any limits on every door", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId);
    for (const via of VERIFY_VIAS) {
      const result = await kit.verify(via, { key });
      expect({ via, code: result.code, valid: result.valid, keyId: result.payload.keyId }).toEqual({ via, code: "VALID", valid: true, keyId });
      // Unlimited: no balance is reported at all (v2 `credits` absent, v1 `remaining` absent), and no rate limit.
      expect("credits" in result.payload).toBe(false);
      expect("remaining" in result.payload).toBe(false);
      if (via === "v2") expect(result.payload.ratelimits).toEqual([]);
      else expect("ratelimit" in result.payload).toBe(false);
    }
  });

  it("keeps an unlimited key VALID however often it is used, deducting nothing", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId);
    for (let i = 0; i < 25; i++) {
      const result = await kit.verify(i % 2 ? "v1" : "v2", { key, cost: 7 });
      expect(result.code).toBe("VALID");
      expect(result.credits).toBeUndefined();
    }
    expect(await kit.admin.balance(keyId)).toBeNull();
  });

  it("deducts 1 credit by default and exactly `cost` when given, on v1 and v2 alike", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 20 } });
    const steps: [("v1" | "v2" | "legacy"), number | undefined, number][] = [
      ["v2", undefined, 19], ["v1", undefined, 18], ["legacy", undefined, 17], ["v2", 5, 12], ["v1", 4, 8], ["v2", 8, 0],
    ];
    for (const [via, cost, left] of steps) {
      const result = await kit.verify(via, { key, cost });
      expect({ via, cost, code: result.code, credits: result.credits }).toEqual({ via, cost, code: "VALID", credits: left });
    }
    expect(await kit.admin.balance(keyId)).toBe(0);
  });

  it("passes a cost-0 verification without deducting, even with no credits left", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 1 } });
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, cost: 0 });
      expect({ via, code: result.code, credits: result.credits }).toEqual({ via, code: "VALID", credits: 1 });
    }
    expect((await kit.verify("v2", { key })).credits).toBe(0);
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, cost: 0 });
      expect({ via, code: result.code, valid: result.valid, credits: result.credits }).toEqual({ via, code: "VALID", valid: true, credits: 0 });
    }
    expect(await kit.admin.balance(keyId)).toBe(0);
  });

  it("accepts up to 10 tags of up to 128 characters", async () => {
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId);
    const tags = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(128, "x"));
    for (const via of ["v1", "v2"] as const) {
      expect((await kit.verify(via, { key, tags })).code).toBe("VALID");
      expect((await kit.verify(via, { key, tags: ["a"] })).code).toBe("VALID");
    }
  });
});
