import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey FORBIDDEN (v1 apiId)", () => {
  const kit = useVerifyKit();

  it("answers FORBIDDEN with the key's data when apiId is not the key's api, and spends nothing", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api("home-api");
    const otherApi = await kit.admin.api("other-api");
    const { keyId, key } = await kit.admin.key(apiId, {
      name: "wrong-door", externalId: "owner_forbidden", credits: { remaining: 5 },
      ratelimits: [{ name: "minute", limit: 2, duration: MINUTE, autoApply: true }],
    });
    for (const via of ["v1", "legacy"] as const) {
      for (let i = 0; i < 3; i++) {
        const result = await kit.verify(via, { key, apiId: otherApi });
        expect({ via, code: result.code, valid: result.valid, keyId: result.payload.keyId, name: result.payload.name, ownerId: result.payload.ownerId, credits: result.credits })
          .toEqual({ via, code: "FORBIDDEN", valid: false, keyId, name: "wrong-door", ownerId: "owner_forbidden", credits: 5 });
      }
    }
    expect(await kit.admin.balance(keyId)).toBe(5);
    // Six refusals left the limit untouched: its own api verifies with the whole window.
    const ok = await kit.verify("v1", { key, apiId });
    expect({ code: ok.code, remaining: ok.credits, ratelimit: ok.payload.ratelimit })
      .toEqual({ code: "VALID", remaining: 4, ratelimit: { limit: 2, remaining: 1, reset: start + MINUTE } });
  });

  it("answers FORBIDDEN for an apiId that names no api at all", async () => {
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId);
    for (const via of ["v1", "legacy"] as const) expect((await kit.verify(via, { key, apiId: "api_doesNotExist123" })).code).toBe("FORBIDDEN");
  });

  it("answers FORBIDDEN before EXPIRED, INSUFFICIENT_PERMISSIONS and USAGE_EXCEEDED", async () => {
    const apiId = await kit.admin.api();
    const otherApi = await kit.admin.api("other-api");
    const { key } = await kit.admin.key(apiId, { credits: { remaining: 0 }, expires: kit.harness.clock.now() + 1000 });
    kit.harness.clock.advance(1000);
    expect((await kit.verify("v1", { key, apiId })).code).toBe("EXPIRED");
    const result = await kit.verify("v1", { key, apiId: otherApi, permissions: { v1: "nope", v2: "nope" } });
    expect(result.code).toBe("FORBIDDEN");
    expect((await kit.verify("legacy", { key, apiId: otherApi })).code).toBe("FORBIDDEN");
  });

  it("is not a v2 concept: v2 has no apiId field and refuses it as unknown (400)", async () => {
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 2 } });
    const response = await kit.verifier.send("v2", { key, apiId });
    expect(response.status).toBe(400);
    expect(response.body.error.status).toBe(400);
    expect(await kit.admin.balance(keyId)).toBe(2);
  });
});
