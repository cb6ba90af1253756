import { describe, expect, it } from "vitest";
import { useVerifyKit } from "../../support/verify-key.js";

const DAY = 86_400_000;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

describe("keys.verifyKey credits refill", () => {
  const kit = useVerifyKit();

  it("refills daily at 00:00 UTC to `amount`, once however many days passed", async () => {
    const { clock } = kit.harness;
    const midnight = (Math.floor(clock.now() / DAY) + 1) * DAY;
    clock.set(midnight - 3_600_000);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 2, refill: { interval: "daily", amount: 5 } } });
    expect((await kit.verify("v2", { key })).credits).toBe(1);
    expect((await kit.verify("v1", { key })).credits).toBe(0);
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(midnight - 1);
    expect((await kit.verify("v1", { key })).code).toBe("USAGE_EXCEEDED");
    expect(await kit.admin.balance(keyId)).toBe(0);
    clock.set(midnight);
    expect(await kit.admin.balance(keyId)).toBe(5);
    const refilled = await kit.verify("v2", { key });
    expect({ code: refilled.code, credits: refilled.credits }).toEqual({ code: "VALID", credits: 4 });
    clock.set(midnight + 3 * DAY + 5);
    expect((await kit.verify("v2", { key, cost: 2 })).credits).toBe(3);
    expect((await kit.admin.get(keyId)).credits).toEqual({ remaining: 3, refill: { interval: "daily", amount: 5 } });
  });

  it("replaces rather than adds: a balance above `amount` is kept at the boundary", async () => {
    const { clock } = kit.harness;
    const midnight = (Math.floor(clock.now() / DAY) + 1) * DAY;
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 10, refill: { interval: "daily", amount: 5 } } });
    expect((await kit.verify("v2", { key })).credits).toBe(9);
    clock.set(midnight);
    expect((await kit.verify("v2", { key })).credits).toBe(8);
    expect((await kit.verify("v2", { key, cost: 6 })).credits).toBe(2);
    clock.set(midnight + DAY);
    expect((await kit.verify("v1", { key })).credits).toBe(4);
    expect(await kit.admin.balance(keyId)).toBe(4);
  });

  it("refills monthly on `refillDay` at 00:00 UTC, not a millisecond before", async () => {
    const { clock } = kit.harness;
    const now = new Date(clock.now());
    const refillAt = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 15);
    clock.set(refillAt - 20 * DAY);
    const apiId = await kit.admin.api();
    const { keyId, key } = await kit.admin.key(apiId, { credits: { remaining: 1, refill: { interval: "monthly", amount: 3, refillDay: 15 } } });
    expect((await kit.verify("v2", { key })).credits).toBe(0);
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(refillAt - 1);
    expect((await kit.verify("v1", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(refillAt);
    const refilled = await kit.verify("v1", { key });
    expect({ code: refilled.code, credits: refilled.credits }).toEqual({ code: "VALID", credits: 2 });
    expect((await kit.admin.get(keyId)).credits).toEqual({ remaining: 2, refill: { interval: "monthly", amount: 3, refillDay: 15 } });
  });

  it("clamps refillDay 31 to the last day of a short month", async () => {
    const { clock } = kit.harness;
    let year = new Date(clock.now()).getUTCFullYear() + 1;
    if (isLeap(year)) year += 1;
    clock.set(Date.UTC(year, 1, 1, 12));
    const apiId = await kit.admin.api();
    const { key } = await kit.admin.key(apiId, { credits: { remaining: 0, refill: { interval: "monthly", amount: 2, refillDay: 31 } } });
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(Date.UTC(year, 1, 28) - 1);
    expect((await kit.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(Date.UTC(year, 1, 28));
    expect((await kit.verify("v2", { key })).credits).toBe(1);
  });

  it("defaults a v1 monthly refill to the 1st of the month", async () => {
    const { clock } = kit.harness;
    const now = new Date(clock.now());
    const firstOfNext = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    clock.set(firstOfNext - 10 * DAY);
    const apiId = await kit.admin.api();
    const created = await kit.harness.rest.v1Post(
      "keys.createKey", { apiId, remaining: 1, refill: { interval: "monthly", amount: 2 } }, kit.harness.keyward.rootKey,
    );
    expect(created.status).toBe(200);
    const { key, keyId } = created.body;
    // Unkey v1 refuses remaining: 0 on create, so the one credit is spent first.
    expect((await kit.verify("v1", { key })).code).toBe("VALID");
    expect((await kit.verify("v1", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(firstOfNext - 1);
    expect((await kit.verify("legacy", { key })).code).toBe("USAGE_EXCEEDED");
    clock.set(firstOfNext);
    const refilled = await kit.verify("v1", { key });
    expect({ code: refilled.code, credits: refilled.credits }).toEqual({ code: "VALID", credits: 1 });
    const v1Key = await kit.harness.rest.v1Get("keys.getKey", { keyId }, kit.harness.keyward.rootKey);
    expect({ remaining: v1Key.body.remaining, refill: v1Key.body.refill }).toEqual({ remaining: 1, refill: { interval: "monthly", amount: 2, refillDay: 1 } });
  });
});
