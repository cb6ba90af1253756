/** Pure pieces of MongoDB analytics: the aggregation pipeline of a query and the mapping of its rows. */
import type { Document, IndexDescription } from "mongodb";
import { GROUP_FIELD as FIELD, type AnalyticsQuery, type AnalyticsRow, type GroupDimension } from "../analytics-query.js";

/** Where each grouping dimension lives in an event document (events-filters.ts EventDocument). */
const PATH: Record<GroupDimension, string> = {
  outcome: "$outcome",
  key: "$meta.keyId",
  identity: "$meta.identityId",
  api: "$meta.apiId",
  tag: "$tags",
};

/**
 * Secondary indexes analytics needs besides `workspace_time`: dashboards filter by api or key inside a workspace
 * and a time range (equality first, then the range).
 */
export function analyticsIndexes(): IndexDescription[] {
  return [
    { name: "workspace_api_time", key: { "meta.workspaceId": 1, "meta.apiId": 1, time: 1 } },
    { name: "workspace_key_time", key: { "meta.workspaceId": 1, "meta.keyId": 1, time: 1 } },
  ];
}

/** $match of a query: workspace and [start, end) first (the index prefix), then the `$in` filters. */
export function analyticsMatch(query: AnalyticsQuery): Document {
  const match: Document = {
    "meta.workspaceId": query.workspaceId,
    time: { $gte: new Date(query.start), $lt: new Date(query.end) },
  };
  const some = (list: readonly string[] | undefined) => list !== undefined && list.length > 0;
  if (some(query.apiIds)) match["meta.apiId"] = { $in: [...query.apiIds!] };
  if (some(query.keyIds)) match["meta.keyId"] = { $in: [...query.keyIds!] };
  if (some(query.identityIds)) match["meta.identityId"] = { $in: [...query.identityIds!] };
  if (some(query.outcomes)) match.outcome = { $in: [...query.outcomes!] };
  if (some(query.tags)) match.tags = query.tagsMatch === "all" ? { $all: [...query.tags!] } : { $in: [...query.tags!] };
  return match;
}

/**
 * The pipeline: match, (unwind tags when grouping by tag: one count per tag carried), bucket with $dateTrunc in
 * UTC (calendar months for "month"), count per (bucket, group, outcome), then fold the outcomes of each (bucket,
 * group) into one row. Needs MongoDB 5.0 ($dateTrunc), which time-series collections need anyway.
 */
export function analyticsPipeline(query: AnalyticsQuery): Document[] {
  // No `timezone`: $dateTrunc works in UTC by default (calendar months included).
  const group: Document = { time: { $dateTrunc: { date: "$time", unit: query.granularity } } };
  for (const dim of query.groupBy) group[FIELD[dim]] = PATH[dim];
  const keep: Document = { time: "$_id.time" };
  for (const dim of query.groupBy) keep[FIELD[dim]] = `$_id.${FIELD[dim]}`;
  return [
    { $match: analyticsMatch(query) },
    ...(query.groupBy.includes("tag") ? [{ $unwind: "$tags" }] : []),
    { $group: { _id: { ...group, outcomeCounted: "$outcome" }, count: { $sum: 1 }, credits: { $sum: "$creditsSpent" } } },
    {
      $group: {
        _id: Object.fromEntries(Object.keys(group).map((name) => [name, `$_id.${name}`])),
        total: { $sum: "$count" },
        credits: { $sum: "$credits" },
        outcomes: { $push: { outcome: "$_id.outcomeCounted", count: "$count" } },
      },
    },
    { $project: { _id: 0, ...keep, total: 1, credits: 1, outcomes: 1 } },
  ];
}

/** One pipeline row as the port's AnalyticsRow (numbers may arrive as BSON Long or Date). */
export function analyticsRow(row: Document, groupBy: readonly GroupDimension[]): AnalyticsRow {
  const time = row.time instanceof Date ? row.time.getTime() : Number(row.time);
  const out: AnalyticsRow = { time, total: Number(row.total), outcomes: {}, creditsSpent: Number(row.credits ?? 0) };
  for (const dim of groupBy) {
    const value = row[FIELD[dim]];
    if (value !== undefined && value !== null) out[FIELD[dim]] = String(value);
  }
  for (const { outcome, count } of row.outcomes as { outcome: string; count: unknown }[]) {
    out.outcomes[outcome] = (out.outcomes[outcome] ?? 0) + Number(count);
  }
  return out;
}
