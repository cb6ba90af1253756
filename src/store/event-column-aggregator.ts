import { bucketStart, type Granularity } from "../domain/time-buckets.js";
import { GROUP_FIELD, type AnalyticsQuery, type AnalyticsRow, type GroupDimension } from "./analytics-query.js";
import { NO_IDENTITY, type EventColumns, type EventDictionary, type StringInterner } from "./event-columns.js";

interface Counts {
  time: number;
  group: number[];
  total: number;
  credits: number;
  byOutcome: Map<number, number>;
}

/** Ids for a filter list: undefined = no filter; a set that may be empty (nothing matches). */
function idSet(strings: StringInterner, values: readonly string[] | undefined): Set<number> | undefined {
  if (!values || values.length === 0) return undefined;
  return new Set(values.map((v) => strings.find(v)).filter((id) => id >= 0));
}

/**
 * Counts the matching events of the segments it is given, per (bucket, group). `add` may be called for
 * segments in any order; `rows()` gives every group, unordered (ordering and limits are the caller's).
 */
export function createColumnAggregator(query: AnalyticsQuery, dictionary: EventDictionary) {
  const strings = dictionary.strings;
  // Filter values become ids at each `add`: a segment loaded since may have brought strings seen for the first time.
  let workspace = -1;
  let apis: Set<number> | undefined;
  let keys: Set<number> | undefined;
  let identities: Set<number> | undefined;
  let outcomes: Set<number> | undefined;
  let tags: number[] | undefined;
  const resolveFilters = () => {
    workspace = strings.find(query.workspaceId);
    apis = idSet(strings, query.apiIds);
    keys = idSet(strings, query.keyIds);
    identities = idSet(strings, query.identityIds);
    outcomes = idSet(strings, query.outcomes);
    tags = query.tags && query.tags.length > 0 ? query.tags.map((t) => strings.find(t)) : undefined;
    tagMatch.clear();
  };
  const allTags = query.tagsMatch === "all";
  const dims = query.groupBy.filter((d) => d !== "tag");
  const byTag = query.groupBy.includes("tag");
  const granularity: Granularity = query.granularity;
  const buckets = new Map<number, Map<number | string, Counts>>();
  const tagMatch = new Map<number, boolean>();

  function tagSetMatches(tagSet: number): boolean {
    if (!tags) return true;
    let known = tagMatch.get(tagSet);
    if (known === undefined) {
      const held = dictionary.tagsOf(tagSet);
      const wanted = tags;
      known = allTags ? wanted.every((t) => held.includes(t)) : wanted.some((t) => held.includes(t));
      tagMatch.set(tagSet, known);
    }
    return known;
  }

  function count(time: number, group: number[], outcome: number, credits: number): void {
    let groups = buckets.get(time);
    if (!groups) buckets.set(time, (groups = new Map()));
    const name = group.length === 0 ? 0 : group.length === 1 ? group[0] : group.join(",");
    let counts = groups.get(name);
    if (!counts) groups.set(name, (counts = { time, group: group.slice(), total: 0, credits: 0, byOutcome: new Map() }));
    counts.total += 1;
    counts.credits += credits;
    counts.byOutcome.set(outcome, (counts.byOutcome.get(outcome) ?? 0) + 1);
  }

  const valueOf = (columns: EventColumns, dim: GroupDimension, i: number): number =>
    dim === "outcome" ? columns.outcome[i] : dim === "key" ? columns.key[i] : dim === "api" ? columns.api[i] : columns.identity[i];

  return {
    /** Adds the matching events of `columns`. */
    add(columns: EventColumns): void {
      resolveFilters();
      if (workspace < 0) return;
      const { start, end } = query;
      const group: number[] = new Array(dims.length + (byTag ? 1 : 0));
      let lastBucketOf = NaN;
      let lastBucket = 0;
      for (let i = 0; i < columns.size; i++) {
        if (columns.workspace[i] !== workspace) continue;
        const time = columns.time[i];
        if (time < start || time >= end) continue;
        if (apis && !apis.has(columns.api[i])) continue;
        if (keys && !keys.has(columns.key[i])) continue;
        if (identities && !identities.has(columns.identity[i])) continue;
        const outcome = columns.outcome[i];
        if (outcomes && !outcomes.has(outcome)) continue;
        const tagSet = columns.tagSet[i];
        if (!tagSetMatches(tagSet)) continue;
        // Events of a segment are mostly in time order: reuse the last bucket while the minute is the same.
        const minute = time - (time % 60_000);
        if (minute !== lastBucketOf) {
          lastBucketOf = minute;
          lastBucket = bucketStart(time, granularity);
        }
        for (let d = 0; d < dims.length; d++) group[d] = valueOf(columns, dims[d], i);
        if (!byTag) {
          count(lastBucket, group, outcome, columns.credits[i]);
          continue;
        }
        // One count per tag carried; an event without tags has no tag group.
        for (const tag of dictionary.tagsOf(tagSet)) {
          group[dims.length] = tag;
          count(lastBucket, group, outcome, columns.credits[i]);
        }
      }
    },

    rows(): AnalyticsRow[] {
      const rows: AnalyticsRow[] = [];
      for (const groups of buckets.values()) {
        for (const counts of groups.values()) {
          const row: AnalyticsRow = { time: counts.time, total: counts.total, outcomes: {}, creditsSpent: counts.credits };
          dims.forEach((dim, d) => {
            const id = counts.group[d];
            if (id !== NO_IDENTITY) row[GROUP_FIELD[dim]] = strings.values[id];
          });
          if (byTag) row.tag = strings.values[counts.group[dims.length]];
          for (const [outcome, n] of counts.byOutcome) row.outcomes[strings.values[outcome]] = n;
          rows.push(row);
        }
      }
      return rows;
    },
  };
}
