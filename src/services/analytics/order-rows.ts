import type { AnalyticsRow } from "../../store/analytics-query.js";

export type RowOrder = "time_asc" | "time_desc" | "total_desc" | "total_asc";

const GROUP_FIELDS = ["apiId", "keyId", "identityId", "outcome", "tag"] as const;

/** Compares group values so equal buckets list in a stable, documented order (absent values first). */
function byGroup(a: AnalyticsRow, b: AnalyticsRow): number {
  for (const field of GROUP_FIELDS) {
    const x = a[field] ?? "";
    const y = b[field] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Sorts rows by `order` (ties: time ascending, then group values) and keeps the first `limit`. Pure: the stores
 * answer groups in any order, and this makes every backend answer the same list.
 */
export function orderRows(rows: AnalyticsRow[], order: RowOrder, limit: number): AnalyticsRow[] {
  const compare = (a: AnalyticsRow, b: AnalyticsRow): number => {
    switch (order) {
      case "time_desc":
        return b.time - a.time || byGroup(a, b);
      case "total_desc":
        return b.total - a.total || a.time - b.time || byGroup(a, b);
      case "total_asc":
        return a.total - b.total || a.time - b.time || byGroup(a, b);
      default:
        return a.time - b.time || byGroup(a, b);
    }
  };
  return rows.sort(compare).slice(0, limit);
}
