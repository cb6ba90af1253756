/** Start of a window slot that holds nothing yet: below every real start, so a real one always displaces it. */
const NONE = -Infinity;

/**
 * The counts of one rate-limit bucket under one window length: the two newest windows, newest first. Only the
 * current and the previous window ever matter, so nothing older is kept.
 */
export interface WindowBucket {
  readonly duration: number;
  newStart: number;
  newCount: number;
  oldStart: number;
  oldCount: number;
}

/** What a bucket has counted in the window starting at `start` (0 for a window it does not hold, or no bucket). */
export function countIn(bucket: WindowBucket | undefined, start: number): number {
  if (!bucket) return 0;
  return start === bucket.newStart ? bucket.newCount : start === bucket.oldStart ? bucket.oldCount : 0;
}

/** Adds `cost` to the window starting at `start`, keeping the two newest windows (a window older than both is lost). */
function addTo(bucket: WindowBucket, start: number, cost: number): void {
  if (start === bucket.newStart) bucket.newCount += cost;
  else if (start === bucket.oldStart) bucket.oldCount += cost;
  else if (start > bucket.newStart) {
    bucket.oldStart = bucket.newStart;
    bucket.oldCount = bucket.newCount;
    bucket.newStart = start;
    bucket.newCount = cost;
  } else if (start > bucket.oldStart) {
    bucket.oldStart = start;
    bucket.oldCount = cost;
  }
}

/**
 * The embedded store's rate-limit windows, in memory: by tag, then bucket name, then window length, so a lookup builds
 * no key string (the same bucket under another duration, a limit whose duration changed, counts apart). Buckets whose
 * newest window can no longer be current or previous are swept, amortised O(1) per count.
 */
export function createWindowCounts() {
  const byTag = new Map<string, Map<string, WindowBucket[]>>();
  let size = 0;
  let latestNow = 0;
  let sweepAt = 1_024;

  function sweep(): void {
    if (size < sweepAt) return;
    for (const [tag, byName] of byTag) {
      for (const [name, buckets] of byName) {
        const live = buckets.filter((b) => b.newStart + 2 * b.duration > latestNow);
        size -= buckets.length - live.length;
        if (live.length === 0) byName.delete(name);
        else if (live.length < buckets.length) byName.set(name, live);
      }
      if (byName.size === 0) byTag.delete(tag);
    }
    sweepAt = Math.max(1_024, 2 * size);
  }

  return {
    /** The bucket of `name` under `tag` for windows of `duration`, if it counted anything still held. */
    find(tag: string, name: string, duration: number): WindowBucket | undefined {
      const buckets = byTag.get(tag)?.get(name);
      if (buckets) for (const bucket of buckets) if (bucket.duration === duration) return bucket;
      return undefined;
    },

    /** A new, empty bucket of `name` under `tag` for windows of `duration`; `find` gives it from now on. */
    create(tag: string, name: string, duration: number): WindowBucket {
      const bucket: WindowBucket = { duration, newStart: NONE, newCount: 0, oldStart: NONE, oldCount: 0 };
      let byName = byTag.get(tag);
      if (!byName) byTag.set(tag, (byName = new Map()));
      const buckets = byName.get(name);
      if (buckets) buckets.push(bucket);
      else byName.set(name, [bucket]);
      size++;
      return bucket;
    },

    add: addTo,

    /** Notes a step's `now`: buckets dead by the latest one are swept. */
    seen(now: number): void {
      latestNow = Math.max(latestNow, now);
    },

    /** Drops dead buckets once enough have accumulated since the last sweep. */
    sweep,

    get size() {
      return size;
    },

    clear(): void {
      byTag.clear();
      size = 0;
    },
  };
}

export type WindowCounts = ReturnType<typeof createWindowCounts>;
