import { Code, ConnectError } from "@connectrpc/connect";
import { Unkey } from "unkey-v2";
import { ForbiddenErrorResponse } from "unkey-v2/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { AnalyticsService } from "../../../gen/keyward/v1/analytics_pb.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { toNextWindow, useVerifyKit } from "../../support/verify-key.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The query examples of Unkey's analytics docs, verbatim but for ids (`ks_1234` → an api of this test...). */
const examples = (ids: { apiA: string; apiB: string; k1: string }) => ({
  total7d: "SELECT COUNT(*) as total FROM key_verifications_v1 WHERE time >= now() - INTERVAL 7 DAY",
  perDay7d: "SELECT SUM(count) as total_verifications FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 7 DAY",
  byOutcome: "SELECT outcome, SUM(count) as count FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY GROUP BY outcome ORDER BY count DESC",
  oneRow: "SELECT sumIf(count, outcome = 'VALID') AS valid, sumIf(count, outcome = 'RATE_LIMITED') AS rateLimited, sumIf(count, outcome = 'INVALID') AS invalid, sumIf(count, outcome = 'NOT_FOUND') AS notFound, sumIf(count, outcome = 'FORBIDDEN') AS forbidden, sumIf(count, outcome = 'USAGE_EXCEEDED') AS usageExceeded, sumIf(count, outcome = 'UNAUTHORIZED') AS unauthorized, sumIf(count, outcome = 'DISABLED') AS disabled, sumIf(count, outcome = 'INSUFFICIENT_PERMISSIONS') AS insufficientPermissions, sumIf(count, outcome = 'EXPIRED') AS expired, SUM(count) AS total FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY",
  perKeyOutcomes: "SELECT key_id, sumIf(count, outcome = 'VALID') AS valid, sumIf(count, outcome = 'RATE_LIMITED') AS rateLimited, sumIf(count, outcome = 'USAGE_EXCEEDED') AS usageExceeded, sumIf(count, outcome = 'DISABLED') AS disabled, SUM(count) AS total FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY GROUP BY key_id ORDER BY total DESC LIMIT 100",
  dailyTrend: "SELECT time as date, SUM(count) as verifications FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY GROUP BY date ORDER BY date",
  hourlyToday: "SELECT time as hour, outcome, SUM(count) as verifications FROM key_verifications_per_hour_v1 WHERE time >= toStartOfDay(now()) GROUP BY time, outcome ORDER BY time, outcome",
  usersRanked: "SELECT external_id, SUM(count) as total_verifications, SUM(CASE WHEN outcome = 'VALID' THEN count ELSE 0 END) as successful, SUM(CASE WHEN outcome = 'RATE_LIMITED' THEN count ELSE 0 END) as rate_limited FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY AND external_id != '' GROUP BY external_id ORDER BY total_verifications DESC LIMIT 100",
  oneUser: "SELECT SUM(count) as total_verifications, SUM(CASE WHEN outcome = 'VALID' THEN count ELSE 0 END) as successful, SUM(CASE WHEN outcome = 'RATE_LIMITED' THEN count ELSE 0 END) as rate_limited FROM key_verifications_per_day_v1 WHERE external_id = 'user_123' AND time >= now() - INTERVAL 30 DAY",
  dailyPerUser: "SELECT external_id, time as date, SUM(count) as verifications FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY GROUP BY external_id, date ORDER BY external_id, date",
  perKeyspace: "SELECT key_space_id, SUM(count) as total_verifications, SUM(CASE WHEN outcome = 'VALID' THEN count ELSE 0 END) as successful FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 30 DAY GROUP BY key_space_id ORDER BY total_verifications DESC",
  oneKeyspace: `SELECT SUM(count) as total_verifications, SUM(CASE WHEN outcome = 'VALID' THEN count ELSE 0 END) as successful, SUM(CASE WHEN outcome = 'RATE_LIMITED' THEN count ELSE 0 END) as rate_limited, SUM(CASE WHEN outcome = 'INVALID' THEN count ELSE 0 END) as invalid FROM key_verifications_per_day_v1 WHERE key_space_id = '${ids.apiA}' AND time >= now() - INTERVAL 30 DAY`,
  successRate: `SELECT key_space_id, SUM(count) as verifications, round(SUM(CASE WHEN outcome = 'VALID' THEN count ELSE 0 END) / SUM(count) * 100, 2) as success_rate FROM key_verifications_per_day_v1 WHERE key_space_id IN ('${ids.apiA}', '${ids.apiB}') AND time >= now() - INTERVAL 7 DAY GROUP BY key_space_id`,
  oneKey: `SELECT SUM(count) as total_verifications, SUM(CASE WHEN outcome = 'VALID' THEN count ELSE 0 END) as successful, SUM(CASE WHEN outcome = 'RATE_LIMITED' THEN count ELSE 0 END) as rate_limited FROM key_verifications_per_day_v1 WHERE key_id = '${ids.k1}' AND time >= now() - INTERVAL 30 DAY`,
  has: "SELECT SUM(count) as total FROM key_verifications_per_day_v1 WHERE has(tags, 'path=/api/v1/users') AND time >= now() - INTERVAL 7 DAY",
  hasAny: "SELECT SUM(count) as total FROM key_verifications_per_day_v1 WHERE hasAny(tags, ['path=/api/v1/users', 'path=/api/v1/posts']) AND time >= now() - INTERVAL 7 DAY",
  hasAll: "SELECT SUM(count) as total FROM key_verifications_per_day_v1 WHERE hasAll(tags, ['environment=production', 'team=backend']) AND time >= now() - INTERVAL 7 DAY",
  byTag: "SELECT arrayJoin(tags) as tag, SUM(count) as verifications FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 7 DAY GROUP BY tag ORDER BY verifications DESC LIMIT 20",
  creditsMonth: "SELECT external_id, toStartOfMonth(time) as month, SUM(spent_credits) as total_credits FROM key_verifications_per_day_v1 WHERE external_id != '' AND time >= toStartOfMonth(now()) GROUP BY external_id, month ORDER BY total_credits DESC",
  creditsPeriod: "SELECT external_id, SUM(spent_credits) as credits_this_period FROM key_verifications_per_day_v1 WHERE external_id = 'user_123' AND time >= 1704067200000 AND time < 1706745600000 GROUP BY external_id",
  estimatedCost: "SELECT time as date, SUM(spent_credits) as credits_used, credits_used * 0.001 as estimated_cost FROM key_verifications_per_day_v1 WHERE external_id = 'user_123' AND time >= now() - INTERVAL 30 DAY GROUP BY date ORDER BY date",
  hourly7d: "SELECT time, SUM(count) as total FROM key_verifications_per_hour_v1 WHERE time >= toStartOfHour(now() - INTERVAL 7 DAY) GROUP BY time ORDER BY time",
  daily30d: "SELECT time, SUM(count) as total FROM key_verifications_per_day_v1 WHERE time >= toStartOfDay(now() - INTERVAL 30 DAY) GROUP BY time ORDER BY time",
  monthly12: "SELECT time, SUM(count) as total FROM key_verifications_per_month_v1 WHERE time >= toStartOfMonth(now() - INTERVAL 12 MONTH) GROUP BY time ORDER BY time",
  rawHourly: "SELECT toStartOfHour(toDateTime(time / 1000)) as hour, count() as n FROM key_verifications_v1 WHERE time >= toUnixTimestamp(toStartOfDay(now())) * 1000 GROUP BY hour ORDER BY hour",
});

describe("analytics.getVerifications in Unkey's SQL form", () => {
  const kit = useVerifyKit();
  let t0: number;
  let apiA: string;
  let apiB: string;
  let k1: string;
  let k4: string;
  const sdk = (rootKey = kit.harness.keyward.rootKey) =>
    new Unkey({ rootKey, serverURL: kit.harness.keyward.baseUrl, retryConfig: { strategy: "none" } });
  const run = async (query: string, rootKey?: string) => (await sdk(rootKey).analytics.getVerifications({ query })).data;

  // Today (t0) 02:00, api A: k1 (3 credits) → 3 VALID then USAGE_EXCEEDED; k2 disabled → DISABLED.
  // Today 03:00, api B: k3 of user_123 → 2 VALID; k4 (1 per minute) → VALID then RATE_LIMITED. Now: 04:00.
  beforeAll(async () => {
    t0 = toNextWindow(kit.harness.clock, DAY);
    const clock = kit.harness.clock;
    apiA = await kit.admin.api("sql-a");
    apiB = await kit.admin.api("sql-b");
    clock.set(t0 + 2 * HOUR);
    const key1 = await kit.admin.key(apiA, { credits: { remaining: 3 } });
    k1 = key1.keyId;
    const disabled = await kit.admin.key(apiA, { enabled: false });
    const user = await kit.admin.key(apiB, { externalId: "user_123" });
    const limited = await kit.admin.key(apiB, { ratelimits: [{ name: "per-minute", limit: 1, duration: MINUTE, autoApply: true }] });
    k4 = limited.keyId;
    const codes: string[] = [];
    codes.push((await kit.verify("v2", { key: key1.key, tags: ["path=/api/v1/users", "environment=production"] })).code);
    codes.push((await kit.verify("v2", { key: key1.key, tags: ["path=/api/v1/users"] })).code);
    codes.push((await kit.verify("v2", { key: key1.key, tags: ["path=/api/v1/posts"] })).code);
    codes.push((await kit.verify("v2", { key: key1.key })).code);
    codes.push((await kit.verify("v2", { key: disabled.key })).code);
    clock.set(t0 + 3 * HOUR);
    codes.push((await kit.verify("v2", { key: user.key, tags: ["environment=production", "team=backend"] })).code);
    codes.push((await kit.verify("v2", { key: user.key, tags: ["environment=production"] })).code);
    codes.push((await kit.verify("v2", { key: limited.key })).code);
    codes.push((await kit.verify("v2", { key: limited.key })).code);
    expect(codes).toEqual(["VALID", "VALID", "VALID", "USAGE_EXCEEDED", "DISABLED", "VALID", "VALID", "VALID", "RATE_LIMITED"]);
    clock.set(t0 + 4 * HOUR);
    await kit.harness.keyward.stores.events.flush();
  });

  it("answers each of Unkey's documented examples with counts equal to the verifications made", async () => {
    const q = examples({ apiA, apiB, k1 });
    expect(await run(q.total7d)).toEqual([{ total: 9 }]);
    expect(await run(q.perDay7d)).toEqual([{ total_verifications: 9 }]);
    expect(await run(q.byOutcome)).toEqual([
      { outcome: "VALID", count: 6 }, { outcome: "DISABLED", count: 1 }, { outcome: "RATE_LIMITED", count: 1 }, { outcome: "USAGE_EXCEEDED", count: 1 },
    ]);
    expect(await run(q.oneRow)).toEqual([{
      valid: 6, rateLimited: 1, invalid: 0, notFound: 0, forbidden: 0, usageExceeded: 1, unauthorized: 0, disabled: 1,
      insufficientPermissions: 0, expired: 0, total: 9,
    }]);
    const perKey = await run(q.perKeyOutcomes);
    expect(perKey[0]).toEqual({ key_id: k1, valid: 3, rateLimited: 0, usageExceeded: 1, disabled: 0, total: 4 });
    expect(perKey.map((r) => r.total)).toEqual([4, 2, 2, 1]);
    expect(perKey.find((r) => r.key_id === k4)).toEqual({ key_id: k4, valid: 1, rateLimited: 1, usageExceeded: 0, disabled: 0, total: 2 });
    expect(await run(q.dailyTrend)).toEqual([{ date: t0, verifications: 9 }]);
    expect(await run(q.hourlyToday)).toEqual([
      { hour: t0 + 2 * HOUR, outcome: "DISABLED", verifications: 1 },
      { hour: t0 + 2 * HOUR, outcome: "USAGE_EXCEEDED", verifications: 1 },
      { hour: t0 + 2 * HOUR, outcome: "VALID", verifications: 3 },
      { hour: t0 + 3 * HOUR, outcome: "RATE_LIMITED", verifications: 1 },
      { hour: t0 + 3 * HOUR, outcome: "VALID", verifications: 3 },
    ]);
    expect(await run(q.usersRanked)).toEqual([{ external_id: "user_123", total_verifications: 2, successful: 2, rate_limited: 0 }]);
    expect(await run(q.oneUser)).toEqual([{ total_verifications: 2, successful: 2, rate_limited: 0 }]);
    expect(await run(q.dailyPerUser)).toEqual([{ external_id: "", date: t0, verifications: 7 }, { external_id: "user_123", date: t0, verifications: 2 }]);
    expect(await run(q.perKeyspace)).toEqual([
      { key_space_id: apiA, total_verifications: 5, successful: 3 }, { key_space_id: apiB, total_verifications: 4, successful: 3 },
    ]);
    expect(await run(q.oneKeyspace)).toEqual([{ total_verifications: 5, successful: 3, rate_limited: 0, invalid: 0 }]);
    const rates = await run(q.successRate);
    expect(rates.sort((a, b) => (a.key_space_id < b.key_space_id ? -1 : 1))).toEqual([
      { key_space_id: apiA, verifications: 5, success_rate: 60 }, { key_space_id: apiB, verifications: 4, success_rate: 75 },
    ].sort((a, b) => (a.key_space_id < b.key_space_id ? -1 : 1)));
    expect(await run(q.oneKey)).toEqual([{ total_verifications: 4, successful: 3, rate_limited: 0 }]);
    expect(await run(q.has)).toEqual([{ total: 2 }]);
    expect(await run(q.hasAny)).toEqual([{ total: 3 }]);
    expect(await run(q.hasAll)).toEqual([{ total: 1 }]);
    expect(await run(q.byTag)).toEqual([
      { tag: "environment=production", verifications: 3 }, { tag: "path=/api/v1/users", verifications: 2 },
      { tag: "path=/api/v1/posts", verifications: 1 }, { tag: "team=backend", verifications: 1 },
    ]);
    expect(await run(q.creditsMonth)).toEqual([{ external_id: "user_123", month: Date.UTC(new Date(t0).getUTCFullYear(), new Date(t0).getUTCMonth(), 1), total_credits: 0 }]);
    expect(await run(q.creditsPeriod)).toEqual([]);
    expect(await run(q.estimatedCost)).toEqual([{ date: t0, credits_used: 0, estimated_cost: 0 }]);
    expect(await run(q.hourly7d)).toEqual([{ time: t0 + 2 * HOUR, total: 5 }, { time: t0 + 3 * HOUR, total: 4 }]);
    expect(await run(q.daily30d)).toEqual([{ time: t0, total: 9 }]);
    expect(await run(q.monthly12)).toEqual([{ time: Date.UTC(new Date(t0).getUTCFullYear(), new Date(t0).getUTCMonth(), 1), total: 9 }]);
    expect(await run(q.rawHourly)).toEqual([{ hour: t0 + 2 * HOUR, n: 5 }, { hour: t0 + 3 * HOUR, n: 4 }]);
  });

  it("counts credits spent, and bounds the time range by the WHERE", async () => {
    expect(await run(`SELECT SUM(spent_credits) AS credits, count() AS n FROM key_verifications_v1 WHERE key_id = '${k1}'`)).toEqual([{ credits: 3, n: 4 }]);
    const at = t0 + 3 * HOUR;
    expect(await run(`SELECT count() AS n FROM key_verifications_v1 WHERE time >= ${at}`)).toEqual([{ n: 4 }]);
    expect(await run(`SELECT count() AS n FROM key_verifications_v1 WHERE time < ${at} AND outcome NOT IN ('VALID')`)).toEqual([{ n: 2 }]);
    expect(await run("SELECT count() AS n FROM key_verifications_v1 WHERE time >= now() - INTERVAL 30 MINUTE")).toEqual([{ n: 0 }]);
  });

  it("a root key with read_analytics on one api reads that api only, whatever the SQL says", async () => {
    const { key } = await kit.harness.seed.rootKey([`api.${apiA}.read_analytics`]);
    const perApi = "SELECT key_space_id, SUM(count) AS n FROM key_verifications_per_day_v1 GROUP BY key_space_id";
    expect(await run(perApi, key)).toEqual([{ key_space_id: apiA, n: 5 }]);
    expect(await run("SELECT count() AS n FROM key_verifications_v1", key)).toEqual([{ n: 5 }]);
    expect(await run(`SELECT count() AS n FROM key_verifications_v1 WHERE key_id = '${k4}'`, key)).toEqual([{ n: 0 }]);
    const error = await sdk(key).analytics.getVerifications({ query: `SELECT count() FROM key_verifications_v1 WHERE key_space_id = '${apiB}'` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenErrorResponse);
    expect((error as ForbiddenErrorResponse).error.detail).toBe(`Missing permission: api.*.read_analytics or api.${apiB}.read_analytics`);
  });

  it("a root key without read_analytics is refused with 403 naming it", async () => {
    const { key } = await kit.harness.seed.rootKey(["api.*.read_api", "api.*.verify_key"]);
    const response = await kit.harness.rest.v2("analytics.getVerifications", { query: "SELECT count() FROM key_verifications_v1" }, key);
    expect(response.status).toBe(403);
    expect(response.body.error.detail).toContain("api.*.read_analytics");
  });

  it("answers the same rows over Connect, gRPC and gRPC-Web, and the same refusals", async () => {
    const transports = rpcTransports(kit.harness.keyward.baseUrl);
    for (const transport of [transports.connect, transports.grpc, transports.grpcWeb]) {
      const client = rpcClient(AnalyticsService, transport);
      const answer = await client.getVerifications(
        { query: "SELECT key_space_id, SUM(count) AS n FROM key_verifications_per_day_v1 GROUP BY key_space_id ORDER BY n DESC" },
        bearer(kit.harness.keyward.rootKey),
      );
      expect(answer.data).toEqual([]);
      expect(answer.rows).toEqual([{ key_space_id: apiA, n: 5 }, { key_space_id: apiB, n: 4 }]);
      const error = ConnectError.from(await client.getVerifications({ query: "DELETE FROM key_verifications_v1" }, bearer(kit.harness.keyward.rootKey)).catch((e: unknown) => e));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toMatch(/DELETE statements are not allowed/);
      const { key } = await kit.harness.seed.rootKey([`api.${apiB}.read_analytics`]);
      expect((await client.getVerifications({ query: "SELECT count() AS n FROM key_verifications_v1" }, bearer(key))).rows).toEqual([{ n: 4 }]);
    }
  });
});
