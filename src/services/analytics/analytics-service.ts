import type { AnalyticsService } from "../../../gen/keyward/v1/analytics_pb.js";
import type { Clock } from "../../domain/clock.js";
import { invalid, notFound } from "../../domain/errors.js";
import { bucketCount, type Granularity } from "../../domain/time-buckets.js";
import type { AnalyticsRow, GroupDimension } from "../../store/analytics-query.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { VerificationEventStore } from "../../store/ports/events.js";
import { authorize, type Principal, type ServiceHandlers } from "../context.js";
import { MAX_BUCKETS } from "./bounds.js";
import { orderRows, type RowOrder } from "./order-rows.js";
import { runSqlQuery } from "./sql-query.js";
import { getApiVerifications } from "./api-verifications.js";
import { getRatelimits } from "./ratelimit-analytics.js";

export { MAX_BUCKETS };
const DEFAULT_LIMIT = 1000;
const V1_DEFAULT_SPAN_MS = 30 * 86_400_000;

export interface AnalyticsServiceDeps {
  documents: DocumentStore;
  events: VerificationEventStore;
  /** Standalone rate-limit checks (analytics.getRatelimits); absent: none recorded, every count 0. */
  ratelimitEvents?: VerificationEventStore;
  clock: Clock;
}

const READ_ANALYTICS = { resourceType: "api", action: "read_analytics" } as const;

/** Refuses a range that is empty or cut into more than MAX_BUCKETS buckets; names the field at fault. */
function checkRange(start: number, end: number, granularity: Granularity): void {
  if (end <= start) {
    throw invalid(`end (${end}) must be after start (${start}).`, [{ location: "end", message: "must be after start" }]);
  }
  const buckets = bucketCount(start, end, granularity);
  if (buckets > MAX_BUCKETS) {
    const detail = `The range spans ${buckets} ${granularity} buckets; at most ${MAX_BUCKETS} are allowed. Narrow the range or use a coarser granularity.`;
    throw invalid(detail, [{ location: "granularity", message: `at most ${MAX_BUCKETS} buckets` }]);
  }
}

/** The api filter needs the action on each named api; no api filter means every api, so the wildcard. */
function authorizeApis(principal: Principal, apiIds: readonly string[]): void {
  if (apiIds.length === 0) authorize(principal, READ_ANALYTICS);
  for (const apiId of new Set(apiIds)) authorize(principal, { ...READ_ANALYTICS, resourceId: apiId });
}

/** The first field of the structured form a request sets, if any. */
function structuredFieldSet(request: Record<string, unknown>): string | undefined {
  const scalars = ["start", "end", "granularity", "tagsMatch", "order", "limit"];
  const lists = ["apiIds", "keyIds", "identityIds", "externalIds", "outcomes", "tags", "groupBy"];
  return scalars.find((f) => request[f] !== undefined) ?? lists.find((f) => (request[f] as unknown[]).length > 0);
}

const count = (row: AnalyticsRow, outcome: string) => BigInt(row.outcomes[outcome] ?? 0);

/** analytics.*: counts of recorded verifications; the store aggregates, this orders, limits and shapes. */
export function createAnalyticsService(deps: AnalyticsServiceDeps): ServiceHandlers<typeof AnalyticsService> {
  const { documents, events, clock } = deps;

  /** Identity ids named directly or by external id; undefined when no identity filter was asked for. */
  async function identityFilter(workspaceId: string, ids: string[], externalIds: string[]): Promise<string[] | undefined> {
    if (ids.length === 0 && externalIds.length === 0) return undefined;
    const resolved = await Promise.all(externalIds.map((externalId) => documents.identities.findByExternalId(workspaceId, externalId)));
    return [...ids, ...resolved.flatMap((identity) => (identity ? [identity.id] : []))];
  }

  return {
    async getVerifications(request, { principal }) {
      if (request.query !== undefined) {
        const other = structuredFieldSet(request);
        if (other) throw invalid(`query (Unkey's SQL form) cannot be combined with ${other}.`, [{ location: other, message: "not with query" }]);
        return { data: [], rows: await runSqlQuery(deps, principal, request.query) };
      }
      for (const field of ["start", "end", "granularity"] as const) {
        if (request[field] === undefined) throw invalid(`${field} is required (or send query, Unkey's SQL form).`, [{ location: field, message: "required" }]);
      }
      authorizeApis(principal, request.apiIds);
      const start = Number(request.start);
      const end = Number(request.end);
      const granularity = request.granularity as Granularity;
      checkRange(start, end, granularity);
      const identityIds = await identityFilter(principal.workspaceId, request.identityIds, request.externalIds);
      // Identities asked for but none exists: nothing can match (an empty list would mean "no filter").
      if (identityIds !== undefined && identityIds.length === 0) return { data: [] };
      const rows = await events.query({
        workspaceId: principal.workspaceId,
        start,
        end,
        granularity,
        apiIds: request.apiIds,
        keyIds: request.keyIds,
        identityIds,
        outcomes: request.outcomes,
        tags: request.tags,
        tagsMatch: request.tagsMatch === "all" ? "all" : "any",
        groupBy: request.groupBy as GroupDimension[],
      });
      const ordered = orderRows(rows, (request.order ?? "time_asc") as RowOrder, request.limit ?? DEFAULT_LIMIT);
      return {
        data: ordered.map((row) => ({
          time: BigInt(row.time),
          outcome: row.outcome,
          keyId: row.keyId,
          identityId: row.identityId,
          tag: row.tag,
          apiId: row.apiId,
          total: BigInt(row.total),
          valid: count(row, "VALID"),
          rateLimited: count(row, "RATE_LIMITED"),
          usageExceeded: count(row, "USAGE_EXCEEDED"),
          disabled: count(row, "DISABLED"),
          expired: count(row, "EXPIRED"),
          forbidden: count(row, "FORBIDDEN"),
          insufficientPermissions: count(row, "INSUFFICIENT_PERMISSIONS"),
          creditsSpent: BigInt(row.creditsSpent),
        })),
      };
    },

    getApiVerifications: (request, { principal }) => getApiVerifications(deps, principal, request),
    getRatelimits: (request, { principal }) => getRatelimits(deps, principal, request),

    async getKeyVerifications(request, { principal }) {
      if ((request.keyId === undefined) === (request.ownerId === undefined)) {
        throw invalid("Send exactly one of keyId and ownerId.", [{ location: "keyId", message: "exactly one of keyId and ownerId" }]);
      }
      const end = request.end === undefined ? clock.now() + 1 : Number(request.end); // "now" included
      const start = request.start === undefined ? Math.max(0, end - V1_DEFAULT_SPAN_MS) : Number(request.start);
      checkRange(start, end, "day");
      let filter: { keyIds?: string[]; identityIds?: string[] };
      if (request.keyId !== undefined) {
        const key = await documents.keys.get(principal.workspaceId, request.keyId);
        if (!key) throw notFound(`The key ${request.keyId} does not exist.`);
        authorize(principal, { ...READ_ANALYTICS, resourceId: key.apiId });
        filter = { keyIds: [key.id] };
      } else {
        authorize(principal, READ_ANALYTICS);
        const identity = await documents.identities.findByExternalId(principal.workspaceId, request.ownerId!);
        if (!identity) return { verifications: [] };
        filter = { identityIds: [identity.id] };
      }
      const rows = await events.query({ workspaceId: principal.workspaceId, start, end, granularity: "day", groupBy: [], ...filter });
      return {
        verifications: orderRows(rows, "time_asc", MAX_BUCKETS).map((row) => ({
          time: BigInt(row.time),
          success: count(row, "VALID"),
          rateLimited: count(row, "RATE_LIMITED"),
          usageExceeded: count(row, "USAGE_EXCEEDED"),
        })),
      };
    },
  };
}
