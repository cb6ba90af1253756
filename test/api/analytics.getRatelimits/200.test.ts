import { Code, ConnectError } from "@connectrpc/connect";
import { Unkey } from "unkey-v2";
import { ForbiddenErrorResponse } from "unkey-v2/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { AnalyticsService } from "../../../gen/keyward/v1/analytics_pb.js";
import { bearer, rpcClient, rpcTransports } from "../../support/rpc.js";
import { useKeyward } from "../../support/use-keyward.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

describe("analytics.getRatelimits", () => {
  const harness = useKeyward();
  let t0: number;
  let search: string;
  let upload: string;
  const sdk = (rootKey = harness.keyward.rootKey) => new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });
  const sql = async (query: string, rootKey?: string) => (await sdk(rootKey).analytics.getRatelimits({ query })).data;
  const v2 = async (op: string, body: unknown) => {
    const response = await harness.rest.v2(op, body, harness.keyward.rootKey);
    expect({ op, status: response.status }).toEqual({ op, status: 200 });
    return response.body.data;
  };

  // Hour t0+1h. search: alice (2 per minute) passed, passed, blocked; bob cost 2 passed. Then two multiLimits of
  // upload/alice (1 per minute) and search/carol: the first passes both, the second blocks both (all or nothing).
  beforeAll(async () => {
    t0 = Math.ceil(harness.clock.now() / DAY) * DAY;
    harness.clock.set(t0 + HOUR + MINUTE);
    const alice = { namespace: "rl-search", identifier: "alice", limit: 2, duration: MINUTE };
    const verdicts = [
      (await v2("ratelimit.limit", alice)).success, (await v2("ratelimit.limit", alice)).success, (await v2("ratelimit.limit", alice)).success,
      (await v2("ratelimit.limit", { namespace: "rl-search", identifier: "bob", limit: 5, duration: MINUTE, cost: 2 })).success,
    ];
    const both = [
      { namespace: "rl-upload", identifier: "alice", limit: 1, duration: MINUTE },
      { namespace: "rl-search", identifier: "carol", limit: 10, duration: MINUTE },
    ];
    verdicts.push((await v2("ratelimit.multiLimit", both)).passed, (await v2("ratelimit.multiLimit", both)).passed);
    expect(verdicts).toEqual([true, true, false, true, true, false]);
    const namespaces = (await v2("ratelimit.listNamespaces", {})) as { id: string; name: string }[];
    search = namespaces.find((n) => n.name === "rl-search")!.id;
    upload = namespaces.find((n) => n.name === "rl-upload")!.id;
    harness.clock.set(t0 + 2 * HOUR);
    await harness.keyward.stores.ratelimitEvents.flush();
  });

  it("counts every check in the structured form: passed, blocked and tokens, grouped and filtered", async () => {
    const query = async (body: Record<string, unknown>) => v2("analytics.getRatelimits", { start: t0, end: t0 + DAY, granularity: "hour", ...body });
    expect(await query({})).toEqual([{ time: t0 + HOUR, total: 8, passed: 5, blocked: 3, tokens: 9 }]);
    // A stream of their own: no rate-limit check counts as a verification.
    expect((await sdk().analytics.getVerifications({ query: "SELECT count() AS n FROM key_verifications_v1" })).data).toEqual([{ n: 0 }]);
    expect(await query({ groupBy: ["namespace"], granularity: "day" })).toEqual([
      { time: t0, namespaceId: search, total: 6, passed: 4, blocked: 2, tokens: 7 },
      { time: t0, namespaceId: upload, total: 2, passed: 1, blocked: 1, tokens: 2 },
    ].sort((a, b) => (a.namespaceId < b.namespaceId ? -1 : 1)));
    expect(await query({ namespaceIds: [search], identifiers: ["alice"], groupBy: ["outcome"] })).toEqual([
      { time: t0 + HOUR, outcome: "blocked", total: 1, passed: 0, blocked: 1, tokens: 1 },
      { time: t0 + HOUR, outcome: "passed", total: 2, passed: 2, blocked: 0, tokens: 2 },
    ]);
    expect(await query({ outcome: "blocked", groupBy: ["identifier"], order: "total_desc", limit: 1 })).toEqual([
      { time: t0 + HOUR, identifier: "alice", total: 2, passed: 0, blocked: 2, tokens: 2 },
    ]);
  });

  it("answers Unkey's SQL over ratelimits_v1 and the per-interval tables through the v2 SDK", async () => {
    expect(await sql("SELECT count() AS total, countIf(passed) AS passed, SUM(tokens) AS tokens FROM ratelimits_v1 WHERE time >= now() - INTERVAL 1 DAY")).toEqual([
      { total: 8, passed: 5, tokens: 9 },
    ]);
    const perIdentifier = await sql(
      `SELECT identifier, SUM(total) AS total, SUM(passed) AS passed, SUM(total) - SUM(passed) AS blocked FROM ratelimits_per_day_v1 WHERE namespace_id = '${search}' AND time >= now() - INTERVAL 7 DAY GROUP BY identifier ORDER BY total DESC`,
    );
    expect(perIdentifier).toEqual([
      { identifier: "alice", total: 3, passed: 2, blocked: 1 },
      { identifier: "carol", total: 2, passed: 1, blocked: 1 },
      { identifier: "bob", total: 1, passed: 1, blocked: 0 },
    ]);
    expect(await sql("SELECT time, SUM(total) AS total FROM ratelimits_per_minute_v1 WHERE time >= now() - INTERVAL 2 HOUR GROUP BY time ORDER BY time")).toEqual([
      { time: t0 + HOUR + MINUTE, total: 8 },
    ]);
    expect(await sql("SELECT namespace_id, count() AS blocked FROM ratelimits_v1 WHERE passed = false GROUP BY namespace_id ORDER BY namespace_id")).toEqual(
      [{ namespace_id: search, blocked: 2 }, { namespace_id: upload, blocked: 1 }].sort((a, b) => (a.namespace_id < b.namespace_id ? -1 : 1)),
    );
  });

  it("refuses other tables, other columns and another workspace's namespace with a 400 naming it", async () => {
    const refused = async (query: string, detail: RegExp) => {
      const response = await harness.rest.v2("analytics.getRatelimits", { query }, harness.keyward.rootKey);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body.error.detail).toMatch(detail);
    };
    await refused("SELECT count() FROM key_verifications_v1", /The table key_verifications_v1 is not queryable here; use one of ratelimits_v1/);
    await refused("DROP TABLE ratelimits_v1", /DROP statements are not allowed/);
    await refused("SELECT count() FROM ratelimits_v1 WHERE key_id = 'x'", /The column key_id is not supported on ratelimits_v1/);
    await refused("SELECT sum(latency_avg) FROM ratelimits_per_day_v1", /The column latency_avg is not supported/);
    await refused("SELECT passed FROM ratelimits_per_day_v1", /passed on the per-interval rate-limit tables is a count: use sum\(passed\)/);
    const other = await harness.seed.workspace("rl-analytics-elsewhere");
    await harness.rest.v2("ratelimit.limit", { namespace: "theirs", identifier: "x", limit: 1, duration: MINUTE }, other.rootKey.key);
    const theirs = (await harness.rest.v2("ratelimit.listNamespaces", {}, other.rootKey.key)).body.data[0].id;
    await refused(`SELECT count() FROM ratelimits_v1 WHERE namespace_id = '${theirs}'`, new RegExp(`namespace_id '${theirs}' names nothing in this workspace`));
  });

  it("narrows a root key with read_analytics on one namespace to it, and refuses one without read_analytics", async () => {
    const { key } = await harness.seed.rootKey([`ratelimit.${upload}.read_analytics`]);
    expect(await sql("SELECT count() AS n FROM ratelimits_v1", key)).toEqual([{ n: 2 }]);
    const structured = await harness.rest.v2("analytics.getRatelimits", { start: t0, end: t0 + DAY, granularity: "day" }, key);
    expect(structured.body.data).toEqual([{ time: t0, total: 2, passed: 1, blocked: 1, tokens: 2 }]);
    const error = await sdk(key).analytics.getRatelimits({ query: `SELECT count() FROM ratelimits_v1 WHERE namespace_id = '${search}'` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenErrorResponse);
    expect((error as ForbiddenErrorResponse).error.detail).toBe(`Missing permission: ratelimit.*.read_analytics or ratelimit.${search}.read_analytics`);
    const none = await harness.seed.rootKey(["ratelimit.*.limit"]);
    const refused = await harness.rest.v2("analytics.getRatelimits", { query: "SELECT count() FROM ratelimits_v1" }, none.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.detail).toContain("ratelimit.*.read_analytics");
  });

  it("answers the same over Connect and gRPC", async () => {
    const transports = rpcTransports(harness.keyward.baseUrl);
    for (const transport of [transports.connect, transports.grpc]) {
      const client = rpcClient(AnalyticsService, transport);
      const answer = await client.getRatelimits({ query: "SELECT countIf(NOT passed) AS blocked FROM ratelimits_v1" }, bearer(harness.keyward.rootKey));
      expect(answer.rows).toEqual([{ blocked: 3 }]);
      const buckets = await client.getRatelimits({ start: BigInt(t0), end: BigInt(t0 + DAY), granularity: "day" }, bearer(harness.keyward.rootKey));
      expect(buckets.data.map((b) => [Number(b.total), Number(b.passed), Number(b.blocked), Number(b.tokens)])).toEqual([[8, 5, 3, 9]]);
      const error = ConnectError.from(await client.getRatelimits({ query: "SELECT count() FROM system.tables" }, bearer(harness.keyward.rootKey)).catch((e: unknown) => e));
      expect(error.code).toBe(Code.InvalidArgument);
    }
  });
});
