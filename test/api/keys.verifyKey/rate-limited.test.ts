import { describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit, VERIFY_VIAS, type Verification } from "../../support/verify-key.js";

const MINUTE = 60_000;
const MONTH = 30 * 86_400_000;

/** The v2 `ratelimits[]` as `name: remaining/exceeded` for compact comparisons. */
const limitsOf = (result: Verification) =>
  Object.fromEntries((result.payload.ratelimits as any[]).map((l) => [l.name, { remaining: l.remaining, exceeded: l.exceeded }]));

describe("keys.verifyKey RATE_LIMITED", () => {
  const kit = useVerifyKit();

  it("applies an autoApply limit on every door and answers RATE_LIMITED past it, with limit, remaining and reset", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { ratelimits: [{ name: "minute", limit: 3, duration: MINUTE, autoApply: true }] });
    const [limitId] = (await kit.admin.get(keyId)).ratelimits.map((l: any) => l.id);
    const reset = start + MINUTE;
    expect((await kit.verify("v2", { key })).payload.ratelimits).toEqual([
      { exceeded: false, id: limitId, name: "minute", limit: 3, duration: MINUTE, reset, remaining: 2, autoApply: true },
    ]);
    expect((await kit.verify("v1", { key })).payload.ratelimit).toEqual({ limit: 3, remaining: 1, reset });
    expect((await kit.verify("legacy", { key })).payload.ratelimit).toEqual({ limit: 3, remaining: 0, reset });
    for (const via of VERIFY_VIAS) {
      const result = await kit.verify(via, { key });
      expect({ via, code: result.code, valid: result.valid, keyId: result.payload.keyId }).toEqual({ via, code: "RATE_LIMITED", valid: false, keyId });
      if (via === "v2") {
        expect(result.payload.ratelimits).toEqual([
          { exceeded: true, id: limitId, name: "minute", limit: 3, duration: MINUTE, reset, remaining: 0, autoApply: true },
        ]);
      } else {
        expect(result.payload.ratelimit).toEqual({ limit: 3, remaining: 0, reset });
      }
    }
  });

  it("opens again as the sliding window moves past `reset`, exactly as the window formula says", async () => {
    const { clock } = kit.harness;
    const start = toNextWindow(clock, MINUTE);
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, { ratelimits: [{ name: "minute", limit: 3, duration: MINUTE, autoApply: true }] });
    for (let i = 0; i < 3; i++) expect((await kit.verify("v1", { key })).code).toBe("VALID");
    const reset = start + MINUTE;
    const limited = await kit.verify("v1", { key });
    expect({ code: limited.code, ratelimit: limited.payload.ratelimit }).toEqual({ code: "RATE_LIMITED", ratelimit: { limit: 3, remaining: 0, reset } });
    // At `reset` the previous window still weighs fully: 3 + 1 > 3.
    clock.set(reset);
    expect((await kit.verify("v1", { key })).code).toBe("RATE_LIMITED");
    // 1 ms later it weighs floor(3 × 59999 / 60000) = 2: one more fits.
    clock.set(reset + 1);
    const again = await kit.verify("v1", { key });
    expect({ code: again.code, ratelimit: again.payload.ratelimit }).toEqual({ code: "VALID", ratelimit: { limit: 3, remaining: 0, reset: reset + MINUTE } });
    // Two thirds in: 1 + floor(3 × 19999 / 60000) = 1, so 2 with this call.
    clock.set(reset + 40_001);
    expect((await kit.verify("v1", { key })).payload.ratelimit).toEqual({ limit: 3, remaining: 1, reset: reset + MINUTE });
    // Two windows later nothing is left of either: the whole limit again.
    clock.set(reset + 2 * MINUTE);
    expect((await kit.verify("v1", { key })).payload.ratelimit).toEqual({ limit: 3, remaining: 2, reset: reset + 3 * MINUTE });
  });

  it("applies a limit that is not autoApply only when requested by name, at the requested cost", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, { ratelimits: [{ name: "expensive", limit: 10, duration: MINUTE }] });
    const plain = await kit.verify("v2", { key });
    expect({ code: plain.code, ratelimits: plain.payload.ratelimits }).toEqual({ code: "VALID", ratelimits: [] });
    const steps: [("v1" | "v2"), number, string, number][] = [
      ["v2", 4, "VALID", 6], ["v1", 4, "VALID", 2], ["v2", 4, "RATE_LIMITED", 2], ["v1", 4, "RATE_LIMITED", 2],
      ["v2", 2, "VALID", 0], ["v1", 0, "VALID", 0], ["v2", 1, "RATE_LIMITED", 0],
    ];
    for (const [via, cost, code, remaining] of steps) {
      const result = await kit.verify(via, { key, ratelimits: [{ name: "expensive", cost }] });
      const shown = via === "v2" ? { remaining: result.payload.ratelimits[0].remaining, reset: result.payload.ratelimits[0].reset } : { remaining: result.payload.ratelimit.remaining, reset: result.payload.ratelimit.reset };
      expect({ via, cost, code: result.code, ...shown }).toEqual({ via, cost, code, remaining, reset: start + MINUTE });
    }
  });

  it("runs an autoApply limit once at the requested cost when it is also named in the request", async () => {
    toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, { ratelimits: [{ name: "auto", limit: 10, duration: MINUTE, autoApply: true }] });
    expect(limitsOf(await kit.verify("v2", { key, ratelimits: [{ name: "auto", cost: 5 }] }))).toEqual({ auto: { remaining: 5, exceeded: false } });
    expect(limitsOf(await kit.verify("v2", { key, ratelimits: [{ name: "auto", cost: 0 }] }))).toEqual({ auto: { remaining: 5, exceeded: false } });
    expect(limitsOf(await kit.verify("v2", { key }))).toEqual({ auto: { remaining: 4, exceeded: false } });
  });

  it("applies an ad-hoc limit given limit and duration, per key", async () => {
    const start = toNextWindow(kit.harness.clock, MINUTE);
    const apiId = await kit.admin.api();
    const first = await kit.admin.key(apiId);
    const second = await kit.admin.key(apiId);
    const adhoc = [{ name: "burst", limit: 2, duration: MINUTE }];
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await kit.verify(i === 1 ? "v1" : "v2", { key: first.key, ratelimits: adhoc })).code);
    expect(codes).toEqual(["VALID", "VALID", "RATE_LIMITED"]);
    const other = await kit.verify("v2", { key: second.key, ratelimits: adhoc });
    expect({ code: other.code, ratelimits: other.payload.ratelimits }).toEqual({
      code: "VALID",
      ratelimits: [{ exceeded: false, id: expect.any(String), name: "burst", limit: 2, duration: MINUTE, reset: start + MINUTE, remaining: 1, autoApply: false }],
    });
  });

  it("checks several limits all-or-nothing: the 13th call in a minute of 12/min + 200/month is refused and counts nowhere", async () => {
    const { clock } = kit.harness;
    toNextWindow(clock, MONTH);
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, {
      ratelimits: [
        { name: "per-minute", limit: 12, duration: MINUTE, autoApply: true },
        { name: "per-month", limit: 200, duration: MONTH, autoApply: true },
      ],
    });
    for (let i = 1; i <= 12; i++) {
      const result = await kit.verify(i % 2 ? "v2" : "v1", { key });
      expect({ i, code: result.code }).toEqual({ i, code: "VALID" });
    }
    for (let i = 0; i < 3; i++) {
      const limited = await kit.verify("v2", { key });
      expect({ code: limited.code, limits: limitsOf(limited) }).toEqual({
        code: "RATE_LIMITED",
        limits: { "per-minute": { remaining: 0, exceeded: true }, "per-month": { remaining: 188, exceeded: false } },
      });
    }
    clock.advance(2 * MINUTE);
    const next = await kit.verify("v2", { key });
    expect({ code: next.code, limits: limitsOf(next) }).toEqual({
      code: "VALID",
      limits: { "per-minute": { remaining: 11, exceeded: false }, "per-month": { remaining: 187, exceeded: false } },
    });
  });

  it("counts nothing in a passing limit when another limit of the same call is exceeded", async () => {
    const { clock } = kit.harness;
    toNextWindow(clock, MONTH);
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, {
      ratelimits: [{ name: "per-minute", limit: 5, duration: MINUTE, autoApply: true }, { name: "per-month", limit: 3, duration: MONTH, autoApply: true }],
    });
    for (let i = 0; i < 3; i++) expect((await kit.verify("v2", { key })).code).toBe("VALID");
    for (let i = 0; i < 3; i++) {
      const limited = await kit.verify("v2", { key });
      expect({ code: limited.code, limits: limitsOf(limited) }).toEqual({
        code: "RATE_LIMITED",
        limits: { "per-minute": { remaining: 2, exceeded: false }, "per-month": { remaining: 0, exceeded: true } },
      });
    }
  });

  it("answers RATE_LIMITED before USAGE_EXCEEDED and spends no credit while limited", async () => {
    const { clock } = kit.harness;
    toNextWindow(clock, MINUTE);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 3 }, ratelimits: [{ name: "minute", limit: 2, duration: MINUTE, autoApply: true }] });
    expect((await kit.verify("v2", { key })).credits).toBe(2);
    expect((await kit.verify("v1", { key })).credits).toBe(1);
    for (const via of VERIFY_VIAS) {
      const result = await kit.verify(via, { key });
      expect({ via, code: result.code, credits: result.credits }).toEqual({ via, code: "RATE_LIMITED", credits: 1 });
    }
    expect(await kit.admin.balance(keyId)).toBe(1);
    // Limited and out of credits at once: RATE_LIMITED wins.
    expect((await kit.verify("v2", { key, cost: 5 })).code).toBe("RATE_LIMITED");
    clock.advance(2 * MINUTE);
    const next = await kit.verify("v2", { key });
    expect({ code: next.code, credits: next.credits }).toEqual({ code: "VALID", credits: 0 });
    // Out of credits, one call left in the window: USAGE_EXCEEDED, which counts nothing in the window either.
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    expect(limitsOf(await kit.verify("v2", { key, cost: 0 }))).toEqual({ minute: { remaining: 0, exceeded: false } });
    const both = await kit.verify("v2", { key });
    expect({ code: both.code, credits: both.credits }).toEqual({ code: "RATE_LIMITED", credits: 0 });
  });
});
