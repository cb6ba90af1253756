/**
 * An ascending, duplicate-free list of ids with binary search. Ids sort by creation time, so nearly every insert
 * is an append (O(1)); out-of-order inserts and removals splice (O(n)), which is rare (hard deletes).
 */
export interface SortedIds {
  readonly size: number;
  add(id: string): void;
  remove(id: string): void;
  /** Ids strictly greater than `after` (all ids when undefined), ascending. */
  from(after: string | undefined): IterableIterator<string>;
  /** Ids strictly less than `before` (all ids when undefined), descending: newest first. */
  downFrom(before: string | undefined): IterableIterator<string>;
}

/** Creates an empty SortedIds. Comparison is by UTF-16 code units, which for ASCII ids equals byte order. */
export function createSortedIds(): SortedIds {
  const ids: string[] = [];

  // Index of the first element > id.
  function upperBound(id: string): number {
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid] <= id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  return {
    get size() {
      return ids.length;
    },
    add(id) {
      const n = ids.length;
      if (n === 0 || ids[n - 1] < id) {
        ids.push(id);
        return;
      }
      const at = upperBound(id);
      if (at > 0 && ids[at - 1] === id) return;
      ids.splice(at, 0, id);
    },
    remove(id) {
      const at = upperBound(id) - 1;
      if (at >= 0 && ids[at] === id) ids.splice(at, 1);
    },
    *from(after) {
      for (let i = after === undefined ? 0 : upperBound(after); i < ids.length; i++) yield ids[i];
    },
    *downFrom(before) {
      // Index of the last element < before: one below the first element >= before.
      let i = ids.length - 1;
      if (before !== undefined) {
        i = upperBound(before) - 1;
        if (i >= 0 && ids[i] === before) i--;
      }
      for (; i >= 0; i--) yield ids[i];
    },
  };
}
