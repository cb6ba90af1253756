import type { GetApiVerificationsRequest } from "../../../gen/keyward/v1/analytics_pb.js";
import type { Clock } from "../../domain/clock.js";
import { invalid, notFound } from "../../domain/errors.js";
import { bucketCount, bucketStart, nextBucketStart, type Granularity } from "../../domain/time-buckets.js";
import type { AnalyticsRow, GroupDimension } from "../../store/analytics-query.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { VerificationEventStore } from "../../store/ports/events.js";
import { authorize, type Principal } from "../context.js";
import { MAX_BUCKETS } from "./bounds.js";

const TIME_UNITS = ["month", "day", "hour"] as const;
const OUTCOME_FIELDS = {
  valid: "VALID", forbidden: "FORBIDDEN", usageExceeded: "USAGE_EXCEEDED", rateLimited: "RATE_LIMITED", disabled: "DISABLED",
  insufficientPermissions: "INSUFFICIENT_PERMISSIONS", expired: "EXPIRED",
} as const;

export interface ApiVerificationsDeps {
  documents: DocumentStore;
  events: VerificationEventStore;
  clock: Clock;
}

/**
 * Unkey v1's `GET /v1/analytics.getVerifications`: one api's verifications per outcome, in Unkey's hourly (default),
 * daily or monthly slices. As Unkey: `start` is truncated to its slice and the slice holding `end` counts whole;
 * grouped by time alone, every slice of the range answers, zeros included (ClickHouse's WITH FILL); grouped by
 * identity, keys without one are left out. An api or external id the workspace does not have is a 404.
 */
export async function getApiVerifications(deps: ApiVerificationsDeps, principal: Principal, request: GetApiVerificationsRequest) {
  const { documents, events, clock } = deps;
  const workspaceId = principal.workspaceId;
  const groups = new Set(request.groupBy);
  const units = TIME_UNITS.filter((unit) => groups.has(unit));
  const granularity: Granularity = units[0] ?? "hour"; // the coarsest named wins, as in Unkey's route
  const end = request.end === undefined ? clock.now() : Number(request.end);
  const start = Number(request.start);
  if (start >= end) throw invalid("start cannot be equal or greater than end", [{ location: "start", message: "must be before end" }]);
  const from = bucketStart(start, granularity);
  const to = nextBucketStart(bucketStart(end, granularity), granularity);
  const buckets = bucketCount(from, to, granularity);
  if (buckets > MAX_BUCKETS) {
    throw invalid(`The range spans ${buckets} ${granularity} slices; at most ${MAX_BUCKETS} are allowed.`, [{ location: "start", message: "range too long" }]);
  }

  const api = await documents.apis.get(workspaceId, request.apiId);
  if (!api) throw notFound(`The api ${request.apiId} does not exist.`);
  authorize(principal, { resourceType: "api", action: "read_analytics", resourceId: api.id });
  let identityIds: string[] | undefined;
  if (request.externalId !== undefined) {
    const identity = await documents.identities.findByExternalId(workspaceId, request.externalId);
    if (!identity) throw notFound(`No identity has the external id ${request.externalId}.`);
    identityIds = [identity.id];
  }
  const groupBy: GroupDimension[] = [];
  if (groups.has("key")) groupBy.push("key");
  if (groups.has("identity")) groupBy.push("identity");
  if (groups.has("tag")) groupBy.push("tag");
  let rows = await events.query({
    workspaceId, start: from, end: to, granularity, apiIds: [api.id], keyIds: request.keyId, identityIds,
    tags: request.tag, tagsMatch: "all", groupBy,
  });
  if (groups.has("identity")) rows = rows.filter((row) => row.identityId !== undefined);
  const timed = units.length > 0;
  if (!timed) rows = merged(rows, groupBy);
  else if (groupBy.length === 0 && request.orderBy === undefined) rows = filled(rows, from, to, granularity);

  const externalIds = new Map<string, string>();
  for (const id of new Set(rows.flatMap((row) => (row.identityId ? [row.identityId] : [])))) {
    externalIds.set(id, (await documents.identities.get(workspaceId, id))?.externalId ?? "");
  }
  const answer = rows.map((row) => ({
    time: timed ? BigInt(row.time) : undefined,
    ...Object.fromEntries(Object.entries(OUTCOME_FIELDS).map(([field, outcome]) => [field, BigInt(row.outcomes[outcome] ?? 0)])),
    total: BigInt(row.total),
    keyId: groups.has("key") ? row.keyId : undefined,
    tag: groups.has("tag") ? row.tag : undefined,
    identity: row.identityId && groups.has("identity") ? { id: row.identityId, externalId: externalIds.get(row.identityId) ?? "" } : undefined,
  }));
  const orderBy = request.orderBy ?? "time";
  const sign = request.order === "desc" ? -1 : 1;
  const value = (row: (typeof answer)[number]) => Number((row as Record<string, unknown>)[orderBy] ?? 0);
  answer.sort((a, b) => sign * (value(a) - value(b)));
  return { verifications: answer.slice(0, request.limit ?? answer.length) };
}

/** Rows of one group across time slices summed into one (no time grouping). */
function merged(rows: AnalyticsRow[], groupBy: GroupDimension[]): AnalyticsRow[] {
  const out = new Map<string, AnalyticsRow>();
  for (const row of rows) {
    const id = JSON.stringify([groupBy.includes("key") ? row.keyId : 0, groupBy.includes("identity") ? row.identityId : 0, groupBy.includes("tag") ? row.tag : 0]);
    const sum = out.get(id) ?? { ...row, time: 0, total: 0, creditsSpent: 0, outcomes: {} };
    sum.total += row.total;
    sum.creditsSpent += row.creditsSpent;
    for (const [outcome, n] of Object.entries(row.outcomes)) sum.outcomes[outcome] = (sum.outcomes[outcome] ?? 0) + n;
    out.set(id, sum);
  }
  return [...out.values()];
}

/** Every slice of [from, to), with zero rows where nothing was verified. */
function filled(rows: AnalyticsRow[], from: number, to: number, granularity: Granularity): AnalyticsRow[] {
  const byTime = new Map(rows.map((row) => [row.time, row]));
  const out: AnalyticsRow[] = [];
  for (let t = from; t < to; t = nextBucketStart(t, granularity)) out.push(byTime.get(t) ?? { time: t, total: 0, outcomes: {}, creditsSpent: 0 });
  return out;
}
