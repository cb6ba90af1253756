import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit, VERIFY_VIAS } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey EXPIRED", () => {
  const kit = useVerifyKit();

  it("is VALID until the millisecond before `expires` and EXPIRED from `expires` on, on every door", async () => {
    const { clock } = kit.harness;
    const apiId = await kit.admin.api();
    const expires = clock.now() + 3_600_000;
    const { keyId, key } = await kit.admin.key(apiId, { name: "short-lived", expires, credits: { remaining: 10 } });
    clock.set(expires - 1);
    for (const via of VERIFY_VIAS) expect((await kit.verify(via, { key })).code).toBe("VALID");
    expect(await kit.admin.balance(keyId)).toBe(7);
    clock.set(expires);
    for (const via of VERIFY_VIAS) {
      const result = await kit.verify(via, { key, apiId });
      expect({ via, code: result.code, valid: result.valid, keyId: result.payload.keyId, name: result.payload.name, expires: result.payload.expires, credits: result.credits })
        .toEqual({ via, code: "EXPIRED", valid: false, keyId, name: "short-lived", expires, credits: 7 });
    }
    clock.advance(86_400_000);
    expect((await kit.verify("v2", { key })).code).toBe("EXPIRED");
    expect(await kit.admin.balance(keyId)).toBe(7);
  });

  it("spends no credit and no rate limit while expired", async () => {
    const { clock } = kit.harness;
    const start = toNextWindow(clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, {
      expires: start + 10, credits: { remaining: 3 }, ratelimits: [{ name: "minute", limit: 2, duration: MINUTE, autoApply: true }],
    });
    clock.set(start + 10);
    for (let i = 0; i < 5; i++) expect((await kit.verify(i % 2 ? "v1" : "v2", { key })).code).toBe("EXPIRED");
    expect(await kit.admin.balance(keyId)).toBe(3);
    await kit.admin.update({ keyId, expires: null });
    const ok = await kit.verify("v2", { key });
    expect({ code: ok.code, credits: ok.credits, remaining: ok.payload.ratelimits[0].remaining }).toEqual({ code: "VALID", credits: 2, remaining: 1 });
  });

  it("answers EXPIRED before INSUFFICIENT_PERMISSIONS, RATE_LIMITED and USAGE_EXCEEDED", async () => {
    const { clock } = kit.harness;
    toNextWindow(clock, MINUTE);
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, {
      expires: clock.now() + 1000, credits: { remaining: 1 }, ratelimits: [{ name: "minute", limit: 1, duration: MINUTE, autoApply: true }],
    });
    expect((await kit.verify("v2", { key })).code).toBe("VALID");
    clock.advance(1000);
    for (const via of ["v1", "v2"] as const) {
      const result = await kit.verify(via, { key, permissions: { v1: { and: ["absent"] }, v2: "absent" } });
      expect({ via, code: result.code, credits: result.credits }).toEqual({ via, code: "EXPIRED", credits: 0 });
    }
  });

  it("answers v2 EXPIRED with the key's data, expires included", async () => {
    const { clock } = kit.harness;
    const apiId = await kit.admin.api();
    const expires = clock.now() + 5;
    const { keyId, key } = await kit.admin.key(apiId, { expires, meta: { tier: "trial" } });
    clock.advance(5);
    expect((await kit.verify("v2", { key })).payload).toEqual({
      valid: false, code: "EXPIRED", keyId, meta: { tier: "trial" }, expires, enabled: true, permissions: [], roles: [], ratelimits: [],
    });
  });
});
