import type { Granularity } from "../domain/time-buckets.js";

/** The outcomes analytics counts, in the order of their counters; NOT_FOUND is never recorded. */
export const COUNTED_OUTCOMES = [
  "VALID", "RATE_LIMITED", "USAGE_EXCEEDED", "DISABLED", "EXPIRED", "FORBIDDEN", "INSUFFICIENT_PERMISSIONS",
] as const;

export type GroupDimension = "outcome" | "key" | "identity" | "tag" | "api";

/** The AnalyticsRow field that carries each grouping dimension's value. */
export const GROUP_FIELD = { outcome: "outcome", key: "keyId", identity: "identityId", api: "apiId", tag: "tag" } as const;

/**
 * A resolved analytics query as the event stores answer it: one workspace, [start, end) in unix ms, buckets of
 * `granularity`. An absent or empty filter list matches everything; `tags` match any (default) or all.
 */
export interface AnalyticsQuery {
  workspaceId: string;
  start: number;
  end: number;
  granularity: Granularity;
  apiIds?: readonly string[];
  keyIds?: readonly string[];
  identityIds?: readonly string[];
  outcomes?: readonly string[];
  tags?: readonly string[];
  tagsMatch?: "any" | "all";
  groupBy: readonly GroupDimension[];
}

export type { AnalyticsRow } from "../domain/analytics-row.js";
