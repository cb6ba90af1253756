import { beforeAll, describe, expect, it } from "vitest";
import { AnalyticsService } from "../../../gen/keyward/v1/analytics_pb.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** A row as REST v2 answers it, with every counter present. */
const row = (fields: Record<string, any>): Record<string, any> => ({
  total: 0, valid: 0, rateLimited: 0, usageExceeded: 0, disabled: 0, expired: 0, forbidden: 0, insufficientPermissions: 0,
  creditsSpent: 0, ...fields,
});

describe("analytics.getVerifications", () => {
  const kit = useVerifyKit();
  let t0: number;
  let apiId: string;
  let otherApiId: string;
  let metered: { keyId: string; key: string };
  let owned: { keyId: string; key: string };
  let identityId: string;

  // Hour t0: metered key (3 credits, 4 per minute) → 3 VALID (2 via v2 tagged a, 1 via v1 tagged a+b), then
  // USAGE_EXCEEDED via v2 tagged b, then a cost-0 VALID via v1 tagged b, then RATE_LIMITED via legacy (untagged);
  // the disabled key → DISABLED via v1 tagged a; unknown keys → NOT_FOUND, never recorded.
  // Hour t0+1h: the identity-owned key of the other api → 2 VALID via v2 tagged c.
  beforeAll(async () => {
    t0 = toNextWindow(kit.harness.clock, DAY);
    apiId = await kit.admin.api("analytics-api");
    otherApiId = await kit.admin.api("analytics-other");
    metered = await kit.admin.key(apiId, { credits: { remaining: 3 }, ratelimits: [{ name: "minute", limit: 4, duration: MINUTE, autoApply: true }] });
    const disabled = await kit.admin.key(apiId, { enabled: false });
    owned = await kit.admin.key(otherApiId, { externalId: "analytics-owner" });
    identityId = (await kit.admin.get(owned.keyId)).identity.id;
    const codes: string[] = [];
    const key = metered.key;
    codes.push((await kit.verify("v2", { key, tags: ["a"] })).code);
    codes.push((await kit.verify("v2", { key, tags: ["a"] })).code);
    codes.push((await kit.verify("v1", { key, tags: ["a", "b"] })).code);
    codes.push((await kit.verify("v2", { key, tags: ["b"] })).code);
    codes.push((await kit.verify("v1", { key, cost: 0, tags: ["b"] })).code);
    codes.push((await kit.verify("legacy", { key })).code);
    codes.push((await kit.verify("v1", { key: disabled.key, tags: ["a"] })).code);
    codes.push((await kit.verify("v2", { key: "unknown_key_1", tags: ["a"] })).code);
    kit.harness.clock.set(t0 + HOUR + 5 * MINUTE);
    codes.push((await kit.verify("v2", { key: owned.key, tags: ["c"] })).code);
    codes.push((await kit.verify("v2", { key: owned.key, tags: ["c"] })).code);
    expect(codes).toEqual(["VALID", "VALID", "VALID", "USAGE_EXCEEDED", "VALID", "RATE_LIMITED", "DISABLED", "NOT_FOUND", "VALID", "VALID"]);
    await kit.harness.keyward.stores.events.flush();
  });

  const query = async (body: Record<string, unknown>) => {
    const response = await kit.harness.rest.v2("analytics.getVerifications", { start: t0, end: t0 + DAY, granularity: "hour", ...body }, kit.harness.keyward.rootKey);
    expect(response.status).toBe(200);
    expect(response.body.meta.requestId).toBe(response.headers.get("x-request-id"));
    return response.body.data;
  };

  it("counts per outcome and credits spent per hourly bucket equal the verifications made", async () => {
    expect(await query({})).toEqual([
      row({ time: t0, total: 7, valid: 4, usageExceeded: 1, rateLimited: 1, disabled: 1, creditsSpent: 3 }),
      row({ time: t0 + HOUR, total: 2, valid: 2 }),
    ]);
  });

  it("groups by outcome, by tag (once per tag carried), by key, by api and by identity", async () => {
    expect(await query({ groupBy: ["outcome"], apiIds: [apiId] })).toEqual([
      row({ time: t0, outcome: "DISABLED", total: 1, disabled: 1 }),
      row({ time: t0, outcome: "RATE_LIMITED", total: 1, rateLimited: 1 }),
      row({ time: t0, outcome: "USAGE_EXCEEDED", total: 1, usageExceeded: 1 }),
      row({ time: t0, outcome: "VALID", total: 4, valid: 4, creditsSpent: 3 }),
    ]);
    expect(await query({ groupBy: ["tag"], granularity: "day" })).toEqual([
      row({ time: t0, tag: "a", total: 4, valid: 3, disabled: 1, creditsSpent: 3 }),
      row({ time: t0, tag: "b", total: 3, valid: 2, usageExceeded: 1, creditsSpent: 1 }),
      row({ time: t0, tag: "c", total: 2, valid: 2 }),
    ]);
    const byKey = await query({ groupBy: ["key"], granularity: "month", order: "total_desc" });
    expect(byKey.map((r: any) => [r.keyId, r.total])).toEqual([[metered.keyId, 6], [owned.keyId, 2], [expect.any(String), 1]]);
    // Rows of one bucket list by api id; both apis were made in the same (manual-clock) millisecond.
    expect(await query({ groupBy: ["api", "identity"], granularity: "day" })).toEqual([
      row({ time: t0, apiId, total: 7, valid: 4, usageExceeded: 1, rateLimited: 1, disabled: 1, creditsSpent: 3 }),
      row({ time: t0, apiId: otherApiId, identityId, total: 2, valid: 2 }),
    ].sort((a, b) => (a.apiId < b.apiId ? -1 : 1)));
  });

  it("filters by key, identity, external id, outcome, and tags any or all; order and limit apply last", async () => {
    expect(await query({ keyIds: [owned.keyId] })).toEqual([row({ time: t0 + HOUR, total: 2, valid: 2 })]);
    expect(await query({ identityIds: [identityId], granularity: "day" })).toEqual([row({ time: t0, total: 2, valid: 2 })]);
    expect(await query({ externalIds: ["analytics-owner"], granularity: "day" })).toEqual([row({ time: t0, total: 2, valid: 2 })]);
    expect(await query({ externalIds: ["nobody-has-this"] })).toEqual([]);
    expect(await query({ outcomes: ["RATE_LIMITED", "DISABLED"] })).toEqual([row({ time: t0, total: 2, rateLimited: 1, disabled: 1 })]);
    expect(await query({ tags: ["a", "b"] })).toEqual([row({ time: t0, total: 6, valid: 4, usageExceeded: 1, disabled: 1, creditsSpent: 3 })]);
    expect(await query({ tags: ["a", "b"], tagsMatch: "all" })).toEqual([row({ time: t0, total: 1, valid: 1, creditsSpent: 1 })]);
    expect(await query({ granularity: "minute", order: "time_desc", limit: 1 })).toEqual([row({ time: t0 + HOUR + 5 * MINUTE, total: 2, valid: 2 })]);
  });

  it("answers the same counts over Connect and gRPC", async () => {
    const transports = rpcTransports(kit.harness.keyward.baseUrl);
    for (const transport of [transports.connect, transports.grpc]) {
      const client = rpcClient(AnalyticsService, transport);
      const answer = await client.getVerifications(
        { start: BigInt(t0), end: BigInt(t0 + DAY), granularity: "day", groupBy: ["outcome"] }, bearer(kit.harness.keyward.rootKey),
      );
      expect(answer.data.map((r) => [Number(r.time), r.outcome, Number(r.total), Number(r.creditsSpent)])).toEqual([
        [t0, "DISABLED", 1, 0], [t0, "RATE_LIMITED", 1, 0], [t0, "USAGE_EXCEEDED", 1, 0], [t0, "VALID", 6, 3],
      ]);
    }
  });

  it("a root key holding read_analytics on one api only may query that api", async () => {
    const { key } = await kit.harness.seed.rootKey([`api.${apiId}.read_analytics`]);
    const response = await kit.harness.rest.v2("analytics.getVerifications", { start: t0, end: t0 + DAY, granularity: "day", apiIds: [apiId] }, key);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([row({ time: t0, total: 7, valid: 4, usageExceeded: 1, rateLimited: 1, disabled: 1, creditsSpent: 3 })]);
  });

  it("another workspace sees nothing of these verifications, even naming this workspace's api", async () => {
    const other = await kit.harness.seed.workspace("analytics-elsewhere");
    for (const body of [{}, { apiIds: [apiId] }, { keyIds: [metered.keyId] }]) {
      const response = await kit.harness.rest.v2("analytics.getVerifications", { start: t0, end: t0 + DAY, granularity: "hour", ...body }, other.rootKey.key);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
    }
  });
});
