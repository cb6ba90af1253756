import type { JsonObject } from "@bufbuild/protobuf";
import { parseAnalyticsSql } from "../../domain/analytics-sql/parse-analytics-sql.js";
import { refuse, type SqlPlan, type TimeUnit } from "../../domain/analytics-sql/sql-plan.js";
import { ENGINE_DIMENSION, sqlRows } from "../../domain/analytics-sql/sql-rows.js";
import { engineGranularity, finer } from "../../domain/analytics-sql/sql-time.js";
import type { Clock } from "../../domain/clock.js";
import { bucketCount, type Granularity } from "../../domain/time-buckets.js";
import type { GroupDimension } from "../../store/analytics-query.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { VerificationEventStore } from "../../store/ports/events.js";
import { authorize, listableIds, type Principal } from "../context.js";
import { MAX_BUCKETS } from "./bounds.js";

/** A query without a lower time bound reads this far back: the default event retention (90 days). */
export const SQL_DEFAULT_SPAN_MS = 90 * 86_400_000;

/** What one SQL dialect reads: its translator, its event stream, and what its api-like column names. */
export interface SqlTables {
  parse: (sql: string, options: { now: number }) => SqlPlan;
  resourceType: "api" | "ratelimit";
  /** The SQL column carrying the resource id, for messages. */
  apiColumn: string;
  ownedApi: (documents: DocumentStore, workspaceId: string, id: string) => Promise<unknown>;
  /** Checks a key id is the workspace's; absent where the key column is a free string (rate-limit identifiers). */
  ownedKey?: (documents: DocumentStore, workspaceId: string, id: string) => Promise<unknown>;
}

/** Unkey's verification tables: key_space_id is an api, key_id a key. */
export const VERIFICATION_TABLES: SqlTables = {
  parse: parseAnalyticsSql,
  resourceType: "api",
  apiColumn: "key_space_id",
  ownedApi: (documents, workspaceId, id) => documents.apis.get(workspaceId, id),
  ownedKey: (documents, workspaceId, id) => documents.keys.get(workspaceId, id),
};

export interface SqlQueryDeps {
  documents: DocumentStore;
  events: VerificationEventStore;
  clock: Clock;
}

/**
 * Runs Unkey's SQL form of analytics.getVerifications on the structured engine. Confinement, whatever the SQL says:
 * the engine only ever reads the caller's workspace; a key_space_id, key_id or identity_id the WHERE names must
 * exist in that workspace (else a 400 naming it: another workspace's ids are refused, not silently empty); a WHERE
 * api the root key may not read is a 403 naming `api.<id>.read_analytics`; without api ids in the WHERE a root key
 * holding only per-api grants reads exactly those apis. An unknown external_id matches nothing (external ids are
 * the customer's own strings, not Keyward ids). Bounded: at most MAX_BUCKETS engine buckets and 10000 rows.
 * `tables` and `events` name another dialect and its stream (the rate-limit tables, ratelimit-analytics.ts).
 */
export async function runSqlQuery(
  deps: SqlQueryDeps, principal: Principal, sql: string, tables: SqlTables = VERIFICATION_TABLES, events = deps.events,
): Promise<JsonObject[]> {
  const { documents, clock } = deps;
  const workspaceId = principal.workspaceId;
  const now = clock.now();
  const plan = tables.parse(sql, { now });
  const { filters } = plan;

  await requireOwned(tables.apiColumn, filters.apiIds, (id) => tables.ownedApi(documents, workspaceId, id));
  if (tables.ownedKey) await requireOwned("key_id", filters.keyIds, (id) => tables.ownedKey!(documents, workspaceId, id));
  await requireOwned("identity_id", filters.identityIds, (id) => documents.identities.get(workspaceId, id));
  let apiIds = filters.apiIds;
  const access = { resourceType: tables.resourceType, action: "read_analytics" } as const;
  if (apiIds) for (const apiId of apiIds) authorize(principal, { ...access, resourceId: apiId });
  else apiIds = listableIds(principal, tables.resourceType, "read_analytics");

  let identityIds = filters.identityIds;
  if (filters.externalIds) {
    const found = await Promise.all(filters.externalIds.map((id) => documents.identities.findByExternalId(workspaceId, id)));
    const byExternal = found.flatMap((identity) => (identity ? [identity.id] : []));
    identityIds = identityIds ? identityIds.filter((id) => byExternal.includes(id)) : byExternal;
  }
  const end = plan.end ?? now + 1;
  const start = Math.max(0, plan.start ?? end - SQL_DEFAULT_SPAN_MS);
  const nothing = [apiIds, filters.keyIds, identityIds, filters.outcomes, filters.tags?.values].some((list) => list?.length === 0);
  const granularity = granularityOf(plan);
  const buckets = bucketCount(start, end, granularity);
  if (buckets > MAX_BUCKETS) {
    throw refuse(`The query spans ${buckets} ${granularity} buckets; at most ${MAX_BUCKETS} are allowed: narrow its time range (WHERE time >= ...) or group by a coarser unit.`);
  }
  const groupBy = [...new Set([...plan.keys.flatMap((k) => (k.kind === "dim" ? [k.dim] : [])), ...filters.rowFilters.map((f) => f.dim)])]
    .map((dim) => ENGINE_DIMENSION[dim] as GroupDimension);
  const rows = nothing || end <= start ? [] : await events.query({
    workspaceId, start, end, granularity,
    apiIds, keyIds: filters.keyIds, identityIds, outcomes: filters.outcomes,
    tags: filters.tags?.values, tagsMatch: filters.tags?.match ?? "any",
    groupBy: [...new Set(groupBy)],
  });

  const externalIds = new Map<string, string | undefined>();
  if (groupBy.includes("identity")) {
    const ids = [...new Set(rows.flatMap((row) => (row.identityId ? [row.identityId] : [])))];
    const identities = await Promise.all(ids.map((id) => documents.identities.get(workspaceId, id)));
    ids.forEach((id, i) => externalIds.set(id, identities[i]?.externalId));
  }
  return sqlRows(plan, rows, (id) => externalIds.get(id)) as JsonObject[];
}

/** The engine bucket: the finest time unit grouped by, else months (fewest buckets; bounds are exact anyway). */
function granularityOf(plan: SqlPlan): Granularity {
  const units = plan.keys.flatMap((k) => (k.kind === "time" ? [k.unit] : [])) as TimeUnit[];
  return units.length === 0 ? "month" : engineGranularity(units.reduce(finer));
}

async function requireOwned(column: string, ids: string[] | undefined, get: (id: string) => Promise<unknown>): Promise<void> {
  if (!ids) return;
  if (ids.length > 100) throw refuse(`At most 100 values of ${column} per query.`);
  const found = await Promise.all(ids.map(get));
  const missing = ids.filter((_, i) => !found[i]);
  if (missing.length > 0) throw refuse(`${column} '${missing[0]}' names nothing in this workspace.`);
}
