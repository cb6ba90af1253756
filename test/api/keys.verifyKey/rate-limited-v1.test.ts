import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;

describe("keys.verifyKey RATE_LIMITED with v1 legacy limits", () => {
  const kit = useVerifyKit();

  it("treats the deprecated v1 `ratelimit: {cost}` as the limit named `default` with that cost", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const created = await kit.harness.rest.v1Post("keys.createKey", { apiId, ratelimit: { limit: 10, duration: MINUTE } }, kit.harness.keyward.rootKey);
    expect(created.status).toBe(200);
    const { key } = created.body;
    const reset = start + MINUTE;
    expect((await kit.verify("v1", { key, extra: { ratelimit: { cost: 4 } } })).payload.ratelimit).toEqual({ limit: 10, remaining: 6, reset });
    expect((await kit.verify("v1", { key, extra: { ratelimit: {} } })).payload.ratelimit).toEqual({ limit: 10, remaining: 5, reset });
    expect((await kit.verify("v1", { key, ratelimits: [{ name: "default", cost: 3 }] })).payload.ratelimit).toEqual({ limit: 10, remaining: 2, reset });
    const limited = await kit.verify("v1", { key, extra: { ratelimit: { cost: 3 } } });
    expect({ code: limited.code, ratelimit: limited.payload.ratelimit }).toEqual({ code: "RATE_LIMITED", ratelimit: { limit: 10, remaining: 2, reset } });
    // `default` is autoApply: a plain verification costs 1 of it.
    expect((await kit.verify("v2", { key })).payload.ratelimits[0]).toMatchObject({ name: "default", remaining: 1, autoApply: true });
  });

  it("enforces the legacy POST /v1/keys `ratelimit` on the legacy verification route", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const created = await kit.harness.rest.v1Post(
      "keys", { apiId, prefix: "leg", ratelimit: { type: "fast", limit: 3, refillRate: 3, refillInterval: MINUTE } }, kit.harness.keyward.rootKey,
    );
    expect(created.status).toBe(200);
    const { key, keyId } = created.body;
    expect(key).toMatch(/^leg_/);
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const result = await kit.verify("legacy", { key, apiId });
      seen.push([result.code, result.payload.ratelimit]);
      expect(result.payload.keyId).toBe(keyId);
    }
    const reset = start + MINUTE;
    expect(seen).toEqual([
      ["VALID", { limit: 3, remaining: 2, reset }], ["VALID", { limit: 3, remaining: 1, reset }],
      ["VALID", { limit: 3, remaining: 0, reset }], ["RATE_LIMITED", { limit: 3, remaining: 0, reset }],
    ]);
  });
});
