import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey DISABLED", () => {
  const kit = useVerifyKit();

  it("answers DISABLED with the key's data on every door, and spends neither credits nor rate limit", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, {
      name: "off", enabled: false, meta: { a: 1 }, credits: { remaining: 4 },
      ratelimits: [{ name: "minute", limit: 3, duration: MINUTE, autoApply: true }],
    });
    for (const via of VERIFY_VIAS) {
      for (let i = 0; i < 3; i++) {
        const result = await kit.verify(via, { key, apiId });
        expect({ via, code: result.code, valid: result.valid, keyId: result.payload.keyId, credits: result.credits })
          .toEqual({ via, code: "DISABLED", valid: false, keyId, credits: 4 });
        expect(result.payload.name).toBe("off");
        expect(result.payload.meta).toEqual({ a: 1 });
        if (via !== "legacy") expect(result.payload.enabled).toBe(false);
      }
    }
    expect(await kit.admin.balance(keyId)).toBe(4);
    // Nine refusals counted nothing: once enabled, the full limit and balance are there.
    await kit.admin.update({ keyId, enabled: true });
    const after = await kit.verify("v2", { key });
    expect({ code: after.code, credits: after.credits, ratelimits: after.payload.ratelimits.map((l: any) => [l.remaining, l.reset]) })
      .toEqual({ code: "VALID", credits: 3, ratelimits: [[2, start + MINUTE]] });
  });

  it("answers v2 DISABLED with the whole key record shape", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { enabled: false, permissions: ["x.read"], roles: ["r1"] });
    const result = await kit.verify("v2", { key });
    expect(result.payload).toEqual({
      valid: false, code: "DISABLED", keyId, enabled: false, permissions: ["x.read"], roles: ["r1"], ratelimits: [],
    });
  });

  it("answers DISABLED before EXPIRED: a disabled and expired key is DISABLED", async () => {
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, { enabled: false, expires: kit.harness.clock.now() + 1000 });
    kit.harness.clock.advance(2000);
    for (const via of VERIFY_VIAS) expect((await kit.verify(via, { key })).code).toBe("DISABLED");
  });

  it("answers DISABLED before FORBIDDEN: a disabled key checked against another api is DISABLED (v1, legacy)", async () => {
    const apiId = await kit.admin.api();
    const otherApi = await kit.admin.api("other-api");
    const { key } = await kit.admin.key(apiId, { enabled: false });
    for (const via of ["v1", "legacy"] as const) expect((await kit.verify(via, { key, apiId: otherApi })).code).toBe("DISABLED");
  });

  it("answers DISABLED before INSUFFICIENT_PERMISSIONS, RATE_LIMITED and USAGE_EXCEEDED", async () => {
    toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, {
      credits: { remaining: 1 }, ratelimits: [{ name: "minute", limit: 1, duration: MINUTE, autoApply: true }],
    });
    expect((await kit.verify("v2", { key })).code).toBe("VALID");
    await kit.admin.update({ keyId, enabled: false });
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, permissions: { v1: "missing.perm", v2: "missing.perm" } });
      expect({ via, code: result.code, credits: result.credits }).toEqual({ via, code: "DISABLED", credits: 0 });
    }
  });
});
