import { Unkey } from "unkey-v1";
import { beforeAll, describe, expect, it } from "vitest";
import { toNextWindow, useVerifyKit } from "../support/verify-key.js";

const DAY = 86_400_000;

describe("@unkey/api 0.38 (v1 SDK) keys.getVerifications against Keyward", () => {
  const kit = useVerifyKit();
  const sdk = (rootKey = kit.harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: kit.harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });
  let t0: number;
  let apiId: string;
  let keyId: string;

  // Day t0: 2 VALID, 1 USAGE_EXCEEDED; day t0+1: 1 VALID (refilled by an update), 2 RATE_LIMITED; owner's keys only.
  beforeAll(async () => {
    t0 = toNextWindow(kit.harness.clock, DAY);
    apiId = await kit.admin.api("v1-analytics");
    const created = await kit.admin.key(apiId, { externalId: "v1-owner", credits: { remaining: 2 } });
    keyId = created.keyId;
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await kit.verify("v1", { key: created.key })).code);
    kit.harness.clock.set(t0 + DAY + 60_000);
    await kit.admin.update({ keyId, credits: { remaining: 5 }, ratelimits: [{ name: "burst", limit: 1, duration: 60_000, autoApply: true }] });
    for (let i = 0; i < 3; i++) codes.push((await kit.verify("v2", { key: created.key })).code);
    expect(codes).toEqual(["VALID", "VALID", "USAGE_EXCEEDED", "VALID", "RATE_LIMITED", "RATE_LIMITED"]);
    await kit.harness.keyward.stores.events.flush();
  });

  it("by keyId: one row per UTC day with success, rateLimited and usageExceeded", async () => {
    const answer = await sdk().keys.getVerifications({ keyId, start: t0, end: t0 + 2 * DAY, granularity: "day" });
    expect(answer).toEqual({
      result: {
        verifications: [
          { time: t0, success: 2, rateLimited: 0, usageExceeded: 1 },
          { time: t0 + DAY, success: 1, rateLimited: 2, usageExceeded: 0 },
        ],
      },
    });
  });

  it("by ownerId (the identity's external id); start and end default to the last 30 days up to now", async () => {
    const answer = await sdk().keys.getVerifications({ ownerId: "v1-owner" });
    expect(answer.result?.verifications).toEqual([
      { time: t0, success: 2, rateLimited: 0, usageExceeded: 1 },
      { time: t0 + DAY, success: 1, rateLimited: 2, usageExceeded: 0 },
    ]);
    expect((await sdk().keys.getVerifications({ ownerId: "nobody" })).result).toEqual({ verifications: [] });
  });

  it("refuses neither or both of keyId and ownerId (400), an unknown key (404), a missing permission (403)", async () => {
    const neither = await kit.harness.rest.v1Get("keys.getVerifications", {}, kit.harness.keyward.rootKey);
    expect([neither.status, neither.body.error.code]).toEqual([400, "BAD_REQUEST"]);
    const both = await kit.harness.rest.v1Get("keys.getVerifications", { keyId, ownerId: "v1-owner" }, kit.harness.keyward.rootKey);
    expect([both.status, both.body.error.code]).toEqual([400, "BAD_REQUEST"]);
    const week = await kit.harness.rest.v1Get("keys.getVerifications", { keyId, granularity: "week" }, kit.harness.keyward.rootKey);
    expect(week.status).toBe(400);
    const unknown = await sdk().keys.getVerifications({ keyId: "key_unknownKey1234" });
    expect(unknown.error?.code).toBe("NOT_FOUND");
    const { key } = await kit.harness.seed.rootKeyWithout("api.*.read_analytics");
    const forbidden = await sdk(key).keys.getVerifications({ keyId });
    expect(forbidden.error?.code).toBe("INSUFFICIENT_PERMISSIONS");
    expect(forbidden.error?.message).toBe(`Missing permission: api.*.read_analytics`);
  });

  it("a key of another workspace is 404", async () => {
    const other = await kit.harness.seed.workspace("v1-analytics-elsewhere");
    const answer = await sdk(other.rootKey.key).keys.getVerifications({ keyId });
    expect(answer.error?.code).toBe("NOT_FOUND");
  });
});
