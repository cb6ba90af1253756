import { Unkey } from "unkey-v2";
import { BadRequestErrorResponse } from "unkey-v2/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";

/** Unkey's documented examples that use constructs outside Keyward's subset, and what each answer names. */
const UNSUPPORTED_EXAMPLES: [string, RegExp][] = [
  ["SELECT key_id, SUM(count) as total_errors, groupArray(DISTINCT outcome) as error_types FROM key_verifications_per_day_v1 WHERE outcome != 'VALID' AND time >= now() - INTERVAL 7 DAY GROUP BY key_id ORDER BY total_errors DESC LIMIT 20", /near ".*groupArray\(DISTINCT outcome/],
  ["SELECT arrayJoin(arrayFilter(x -> startsWith(x, 'path='), tags)) as endpoint, COUNT(*) as requests FROM key_verifications_v1 WHERE time >= now() - INTERVAL 24 HOUR GROUP BY endpoint ORDER BY requests DESC", /arrayFilter|near ".*->/],
  ["SELECT external_id, SUM(spent_credits) as total_credits, CASE WHEN total_credits <= 1000 THEN 'free' ELSE 'enterprise' END as tier FROM key_verifications_per_day_v1 WHERE time >= toStartOfMonth(now()) AND external_id = 'user_123' GROUP BY external_id", /CASE/],
  ["SELECT date, verifications, avg(verifications) OVER ( ORDER BY date ROWS BETWEEN 6 PRECEDING AND CURRENT ROW ) as moving_avg_7d FROM ( SELECT time as date, SUM(count) as verifications FROM key_verifications_per_day_v1 WHERE time >= now() - INTERVAL 60 DAY GROUP BY date ) ORDER BY date", /Subqueries|Window|OVER/],
  ["SELECT time, SUM(count) as total FROM key_verifications_per_hour_v1 WHERE time >= toStartOfHour(now() - INTERVAL 7 DAY) AND time <= toStartOfHour(now()) GROUP BY time ORDER BY time ASC WITH FILL FROM toStartOfHour(now() - INTERVAL 7 DAY) TO toStartOfHour(now()) STEP INTERVAL 1 HOUR", /not valid SQL.*near ".*WITH FILL/],
];

describe("analytics.getVerifications in Unkey's SQL form: refusals", () => {
  const harness = useKeyward();
  let foreignApi: string;
  let foreignKey: string;

  beforeAll(async () => {
    const other = await harness.seed.workspace("sql-elsewhere");
    foreignApi = (await harness.rest.v2("apis.createApi", { name: "theirs" }, other.rootKey.key)).body.data.apiId;
    foreignKey = (await harness.rest.v2("keys.createKey", { apiId: foreignApi }, other.rootKey.key)).body.data.keyId;
  });

  const refused = async (query: string, detail: RegExp, location = "body.query") => {
    const response = await harness.rest.v2("analytics.getVerifications", { query }, harness.keyward.rootKey);
    expect({ query, status: response.status }).toEqual({ query, status: 400 });
    expect(response.body.error.detail).toMatch(detail);
    expect(response.body.error.errors[0].location).toBe(location);
  };

  it("refuses other tables, naming them", async () => {
    await refused("SELECT count() FROM system.tables", /The table system\.tables is not queryable; use one of key_verifications_v1/);
    await refused("SELECT count() FROM default.key_verifications_raw_v2", /The table default\.key_verifications_raw_v2 is not queryable/);
    await refused("SELECT count() FROM ratelimits_v1", /The table ratelimits_v1 is not queryable/);
    await refused("SELECT count() FROM key_verifications_v1 JOIN key_verifications_per_day_v1 ON 1 = 1", /JOIN is not supported/);
  });

  it("refuses anything but one SELECT: DDL, DML, several statements, UNION, WITH, subqueries", async () => {
    await refused("DROP TABLE key_verifications_v1", /DROP statements are not allowed; only SELECT is/);
    await refused("  -- wipe\n  TRUNCATE TABLE key_verifications_v1", /TRUNCATE statements are not allowed/);
    await refused("ALTER TABLE key_verifications_v1 DELETE WHERE 1 = 1", /ALTER statements are not allowed/);
    await refused("INSERT INTO key_verifications_v1 (key_id) VALUES ('x')", /INSERT statements are not allowed/);
    await refused("CREATE TABLE t (a Int32)", /CREATE statements are not allowed/);
    await refused("SELECT count() FROM key_verifications_v1; DROP TABLE key_verifications_v1", /exactly one statement/);
    await refused("SELECT count() FROM key_verifications_v1 UNION ALL SELECT count() FROM key_verifications_v1", /UNION/i);
    await refused("WITH x AS (SELECT count() FROM key_verifications_v1) SELECT count() FROM key_verifications_v1", /WITH/);
    await refused("SELECT count() FROM (SELECT * FROM key_verifications_v1)", /Subqueries are not supported/);
    await refused("SELECT count() FROM key_verifications_v1 WHERE key_id IN (SELECT key_id FROM key_verifications_v1)", /Subqueries are not supported/);
  });

  it("refuses another workspace's ids in the WHERE, naming the column and id", async () => {
    await refused(`SELECT count() FROM key_verifications_v1 WHERE key_space_id = '${foreignApi}'`, new RegExp(`key_space_id '${foreignApi}' names nothing in this workspace`));
    await refused(`SELECT count() FROM key_verifications_v1 WHERE key_id IN ('${foreignKey}')`, new RegExp(`key_id '${foreignKey}' names nothing in this workspace`));
    await refused("SELECT count() FROM key_verifications_v1 WHERE identity_id = 'id_nowhere'", /identity_id 'id_nowhere' names nothing/);
  });

  it("refuses unsupported functions, columns, operators and clauses, naming each", async () => {
    await refused("SELECT uniq(key_id) FROM key_verifications_v1", /the function uniq\(\) is not supported/);
    await refused("SELECT count() FROM key_verifications_v1 WHERE lower(outcome) = 'valid'", /the column|lower/);
    await refused("SELECT count() FROM key_verifications_v1 WHERE startsWith(key_id, 'key_')", /the function startsWith\(\) is not supported in WHERE/);
    await refused("SELECT count() FROM key_verifications_v1 WHERE region = 'eu'", /WHERE on the column region is not supported/);
    await refused("SELECT count() FROM key_verifications_v1 WHERE outcome = 'VALID' OR outcome = 'EXPIRED'", /OR in WHERE is not supported/);
    await refused("SELECT count() FROM key_verifications_v1 WHERE key_id LIKE 'key_%'", /The operator LIKE on key_id is not supported/);
    await refused("SELECT outcome, count() AS n FROM key_verifications_v1 GROUP BY outcome HAVING n > 1", /HAVING is not supported/);
    await refused("SELECT * FROM key_verifications_v1", /SELECT \* is not supported/);
    await refused("SELECT key_id FROM key_verifications_v1", /Row-level queries are not supported/);
    await refused("SELECT key_id, count() FROM key_verifications_v1", /must be in GROUP BY/);
    await refused("SELECT count() FROM key_verifications_per_day_v1", /count\(\) on key_verifications_per_day_v1 counts its aggregated rows.*sum\(count\)/);
    await refused("SELECT time, count() FROM key_verifications_v1 GROUP BY time", /toStartOfHour/);
    await refused("SELECT count() FROM key_verifications_v1 LIMIT 10 OFFSET 5", /OFFSET is not supported/);
    await refused("SELEC count() FROM key_verifications_v1", /SELEC statements are not allowed/);
    await refused("SELECT count( FROM key_verifications_v1", /not valid SQL, or uses syntax Keyward does not support, at line 1, column \d+ near "SELECT count\( FROM/);
  });

  it("bounds the buckets a query may span", async () => {
    await refused("SELECT time, SUM(count) AS n FROM key_verifications_per_minute_v1 WHERE time >= now() - INTERVAL 3 DAY GROUP BY time", /spans 4321 minute buckets; at most 2000/);
  });

  it("answers Unkey's documented examples outside the subset with a 400 naming the construct", async () => {
    for (const [query, detail] of UNSUPPORTED_EXAMPLES) await refused(query, detail);
  });

  it("refuses an empty query, and query beside the structured fields", async () => {
    await refused("", /query/);
    const response = await harness.rest.v2("analytics.getVerifications", { query: "SELECT count() FROM key_verifications_v1", start: 0 }, harness.keyward.rootKey);
    expect(response.status).toBe(400);
    expect(response.body.error.detail).toMatch(/query \(Unkey's SQL form\) cannot be combined with start/);
    expect(response.body.error.errors[0].location).toBe("body.start");
  });

  it("reaches Unkey's SDK as its typed BadRequest error", async () => {
    const sdk = new Unkey({ rootKey: harness.keyward.rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });
    const error = await sdk.analytics.getVerifications({ query: "DROP TABLE key_verifications_v1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestErrorResponse);
    expect((error as BadRequestErrorResponse).error.detail).toMatch(/DROP statements are not allowed/);
  });
});
