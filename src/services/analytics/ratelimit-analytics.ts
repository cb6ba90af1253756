import type { GetRatelimitsRequest } from "../../../gen/keyward/v1/analytics_pb.js";
import { parseRatelimitSql } from "../../domain/analytics-sql/ratelimit-sql.js";
import { invalid } from "../../domain/errors.js";
import { bucketCount, type Granularity } from "../../domain/time-buckets.js";
import type { GroupDimension } from "../../store/analytics-query.js";
import type { VerificationEventStore } from "../../store/ports/events.js";
import { RATELIMIT_BLOCKED, RATELIMIT_PASSED } from "../../store/ratelimit-events.js";
import { authorize, listableIds, type Principal } from "../context.js";
import { MAX_BUCKETS } from "./bounds.js";
import { orderRows, type RowOrder } from "./order-rows.js";
import { runSqlQuery, type SqlQueryDeps, type SqlTables } from "./sql-query.js";

/** Unkey's rate-limit tables: namespace_id is a namespace of the workspace; identifiers are free strings. */
const RATELIMIT_TABLES: SqlTables = {
  parse: parseRatelimitSql,
  resourceType: "ratelimit",
  apiColumn: "namespace_id",
  ownedApi: (documents, workspaceId, id) => documents.ratelimitNamespaces.get(workspaceId, id),
};
const GROUPS: Record<string, GroupDimension> = { namespace: "api", identifier: "key", outcome: "outcome" };
const READ_ANALYTICS = { resourceType: "ratelimit", action: "read_analytics" } as const;

/**
 * analytics.getRatelimits: standalone rate-limit checks counted from their own event stream, in the structured form
 * or Unkey's SQL. Narrowed like getVerifications, by namespace: `ratelimit.*.read_analytics` reads every namespace,
 * `ratelimit.<namespaceId>.read_analytics` grants exactly theirs. Without a rate-limit event store, nothing counts.
 */
export async function getRatelimits(deps: SqlQueryDeps & { ratelimitEvents?: VerificationEventStore }, principal: Principal, request: GetRatelimitsRequest) {
  const events = deps.ratelimitEvents;
  if (request.query !== undefined) {
    const other = (["start", "end", "granularity", "outcome", "order", "limit"] as const).find((f) => request[f] !== undefined)
      ?? (["namespaceIds", "identifiers", "groupBy"] as const).find((f) => request[f].length > 0);
    if (other) throw invalid(`query (Unkey's SQL form) cannot be combined with ${other}.`, [{ location: other, message: "not with query" }]);
    if (!events) return { data: [], rows: [] };
    return { data: [], rows: await runSqlQuery(deps, principal, request.query, RATELIMIT_TABLES, events) };
  }
  for (const field of ["start", "end", "granularity"] as const) {
    if (request[field] === undefined) throw invalid(`${field} is required (or send query, Unkey's SQL form).`, [{ location: field, message: "required" }]);
  }
  const start = Number(request.start);
  const end = Number(request.end);
  const granularity = request.granularity as Granularity;
  if (end <= start) throw invalid(`end (${end}) must be after start (${start}).`, [{ location: "end", message: "must be after start" }]);
  const buckets = bucketCount(start, end, granularity);
  if (buckets > MAX_BUCKETS) {
    throw invalid(`The range spans ${buckets} ${granularity} buckets; at most ${MAX_BUCKETS} are allowed.`, [{ location: "granularity", message: `at most ${MAX_BUCKETS} buckets` }]);
  }
  let namespaceIds: string[] | undefined = request.namespaceIds;
  if (namespaceIds.length > 0) for (const id of new Set(namespaceIds)) authorize(principal, { ...READ_ANALYTICS, resourceId: id });
  else namespaceIds = listableIds(principal, "ratelimit", "read_analytics");
  if (!events || namespaceIds?.length === 0) return { data: [] };
  const outcome = request.outcome === undefined ? undefined : request.outcome === "passed" ? RATELIMIT_PASSED : RATELIMIT_BLOCKED;
  const rows = await events.query({
    workspaceId: principal.workspaceId, start, end, granularity, apiIds: namespaceIds, keyIds: request.identifiers,
    outcomes: outcome ? [outcome] : undefined, groupBy: request.groupBy.map((g) => GROUPS[g]),
  });
  return {
    data: orderRows(rows, (request.order ?? "time_asc") as RowOrder, request.limit ?? 1000).map((row) => ({
      time: BigInt(row.time),
      namespaceId: row.apiId,
      identifier: row.keyId,
      outcome: row.outcome === undefined ? undefined : row.outcome === RATELIMIT_PASSED ? "passed" : "blocked",
      total: BigInt(row.total),
      passed: BigInt(row.outcomes[RATELIMIT_PASSED] ?? 0),
      blocked: BigInt(row.outcomes[RATELIMIT_BLOCKED] ?? 0),
      tokens: BigInt(row.creditsSpent),
    })),
  };
}
