import { Unkey } from "unkey-v1";
import { beforeAll, describe, expect, it } from "vitest";
import { AnalyticsService } from "../../../gen/keyward/v1/analytics_pb.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const ZERO = { valid: 0, notFound: 0, forbidden: 0, usageExceeded: 0, rateLimited: 0, unauthorized: 0, disabled: 0, insufficientPermissions: 0, expired: 0, total: 0 };

describe("GET /v1/analytics.getVerifications (Unkey v1)", () => {
  const kit = useVerifyKit();
  let t0: number;
  let apiId: string;
  let otherApi: string;
  let k1: string;
  let k2: string;
  let identityId: string;
  const sdk = (rootKey = kit.harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: kit.harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });

  // Today 01:xx: k1 (2 credits) → VALID tagged a, VALID tagged a+b, USAGE_EXCEEDED. Today 03:xx: k2 (user_v1) → VALID
  // tagged b. A key of another api → VALID (never counted here).
  beforeAll(async () => {
    t0 = toNextWindow(kit.harness.clock, DAY);
    apiId = await kit.admin.api("v1-analytics");
    otherApi = await kit.admin.api("v1-analytics-other");
    kit.harness.clock.set(t0 + HOUR + 60_000);
    const key1 = await kit.admin.key(apiId, { credits: { remaining: 2 } });
    const key2 = await kit.admin.key(apiId, { externalId: "user_v1" });
    const other = await kit.admin.key(otherApi, {});
    k1 = key1.keyId;
    k2 = key2.keyId;
    identityId = (await kit.admin.get(k2)).identity.id;
    const codes = [
      (await kit.verify("v1", { key: key1.key, tags: ["a"] })).code,
      (await kit.verify("v1", { key: key1.key, tags: ["a", "b"] })).code,
      (await kit.verify("v1", { key: key1.key })).code,
    ];
    kit.harness.clock.set(t0 + 3 * HOUR + 60_000);
    codes.push((await kit.verify("v1", { key: key2.key, tags: ["b"] })).code, (await kit.verify("v1", { key: other.key })).code);
    expect(codes).toEqual(["VALID", "VALID", "USAGE_EXCEEDED", "VALID", "VALID"]);
    kit.harness.clock.set(t0 + 4 * HOUR);
    await kit.harness.keyward.stores.events.flush();
  });

  it("answers the api's totals, and hourly slices from the truncated start to the slice holding end, zeros included", async () => {
    const all = await sdk().analytics.getVerifications({ apiId, start: t0 });
    expect(all.error).toBeUndefined();
    expect(all.result).toEqual([{ ...ZERO, valid: 3, usageExceeded: 1, total: 4 }]);
    const hourly = await sdk().analytics.getVerifications({ apiId, start: t0 + 30 * 60_000, end: t0 + 3 * HOUR + 5, groupBy: "hour" });
    expect(hourly.result).toEqual([
      { ...ZERO, time: t0 },
      { ...ZERO, time: t0 + HOUR, valid: 2, usageExceeded: 1, total: 3 },
      { ...ZERO, time: t0 + 2 * HOUR },
      { ...ZERO, time: t0 + 3 * HOUR, valid: 1, total: 1 },
    ]);
    const daily = await sdk().analytics.getVerifications({ apiId, start: t0, groupBy: "day" });
    expect(daily.result).toEqual([{ ...ZERO, time: t0, valid: 3, usageExceeded: 1, total: 4 }]);
  });

  it("groups by key, identity and tag; filters by key, external id and tags (all of them); orders and limits", async () => {
    const byKey = await sdk().analytics.getVerifications({ apiId, start: t0, groupBy: "key", orderBy: "total", order: "desc" });
    expect(byKey.result).toEqual([{ ...ZERO, keyId: k1, valid: 2, usageExceeded: 1, total: 3 }, { ...ZERO, keyId: k2, valid: 1, total: 1 }]);
    const byIdentity = await sdk().analytics.getVerifications({ apiId, start: t0, groupBy: "identity" });
    expect(byIdentity.result).toEqual([{ ...ZERO, identity: { id: identityId, externalId: "user_v1" }, valid: 1, total: 1 }]);
    const byTag = await sdk().analytics.getVerifications({ apiId, start: t0, groupBy: "tag", orderBy: "total", order: "desc" });
    expect(byTag.result).toEqual([{ ...ZERO, tag: "a", valid: 2, total: 2 }, { ...ZERO, tag: "b", valid: 2, total: 2 }]);
    expect((await sdk().analytics.getVerifications({ apiId, start: t0, keyId: k1 })).result).toEqual([{ ...ZERO, valid: 2, usageExceeded: 1, total: 3 }]);
    expect((await sdk().analytics.getVerifications({ apiId, start: t0, externalId: "user_v1" })).result).toEqual([{ ...ZERO, valid: 1, total: 1 }]);
    expect((await sdk().analytics.getVerifications({ apiId, start: t0, tag: "b" })).result).toEqual([{ ...ZERO, valid: 2, total: 2 }]);
    // Several tags are repeated parameters (the SDK joins an array with commas, which names one tag "a,b", as on Unkey).
    const both = await kit.harness.rest.raw(`/v1/analytics.getVerifications?apiId=${apiId}&start=${t0}&tag=a&tag=b`, {
      headers: { authorization: `Bearer ${kit.harness.keyward.rootKey}` },
    });
    expect(both.body).toEqual([{ ...ZERO, valid: 1, total: 1 }]);
    const top = await sdk().analytics.getVerifications({ apiId, start: t0, groupBy: ["key", "day"], orderBy: "total", order: "desc", limit: 1 });
    expect(top.result).toEqual([{ ...ZERO, time: t0, keyId: k1, valid: 2, usageExceeded: 1, total: 3 }]);
  });

  it("refuses bad input with 400, an unknown api or external id with 404, and a root key without read_analytics on the api with 403", async () => {
    const badRange = await sdk().analytics.getVerifications({ apiId, start: t0 + HOUR, end: t0 });
    expect(badRange.error).toMatchObject({ code: "BAD_REQUEST", message: "start cannot be equal or greater than end" });
    const tags = await sdk().analytics.getVerifications({ apiId, start: t0, groupBy: "tags" });
    expect(tags.error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("groupBy") });
    const raw = await kit.harness.rest.v1Get("analytics.getVerifications", { apiId, start: "yesterday" }, kit.harness.keyward.rootKey);
    expect(raw.status).toBe(400);
    expect(raw.body.error.code).toBe("BAD_REQUEST");
    expect((await kit.harness.rest.v1Get("analytics.getVerifications", { apiId }, kit.harness.keyward.rootKey)).body.error.message).toMatch(/start/);
    const unknown = await sdk().analytics.getVerifications({ apiId: "api_doesnotexist", start: t0 });
    expect(unknown.error).toMatchObject({ code: "NOT_FOUND" });
    const noOwner = await sdk().analytics.getVerifications({ apiId, start: t0, externalId: "nobody" });
    expect(noOwner.error).toMatchObject({ code: "NOT_FOUND" });
    const { key } = await kit.harness.seed.rootKey([`api.${otherApi}.read_analytics`]);
    const forbidden = await sdk(key).analytics.getVerifications({ apiId, start: t0 });
    expect(forbidden.error).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", message: `Missing permission: api.*.read_analytics or api.${apiId}.read_analytics` });
    const other = await kit.harness.seed.workspace("v1-analytics-elsewhere");
    expect((await sdk(other.rootKey.key).analytics.getVerifications({ apiId, start: t0 })).error).toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers the same rows as GetApiVerifications over Connect and gRPC", async () => {
    const transports = rpcTransports(kit.harness.keyward.baseUrl);
    for (const transport of [transports.connect, transports.grpc]) {
      const client = rpcClient(AnalyticsService, transport);
      const answer = await client.getApiVerifications({ apiId, start: BigInt(t0), groupBy: ["key"], orderBy: "total", order: "desc" }, bearer(kit.harness.keyward.rootKey));
      expect(answer.verifications.map((row) => [row.keyId, Number(row.valid), Number(row.usageExceeded), Number(row.total), row.time])).toEqual([
        [k1, 2, 1, 3, undefined], [k2, 1, 0, 1, undefined],
      ]);
    }
  });
});
