import type { AnalyticsQuery, AnalyticsRow } from "../analytics-query.js";
import { createColumnAggregator } from "../event-column-aggregator.js";
import { EventColumns, EventDictionary } from "../event-columns.js";
import type { VerificationEvent } from "../ports/events.js";

export interface EventColumnCache {
  /** Runs `task` alone: segment loads and appends never interleave, so a loaded segment is never counted twice. */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /** Events just appended to a segment's file; a cached segment takes them too (call inside `exclusive`). */
  appended(start: number, events: readonly VerificationEvent[]): void;
  /** The segment's file is gone (retention). */
  drop(start: number): void;
  /** Answers a query over the given segments, loading those not cached (oldest first). */
  query(query: AnalyticsQuery, segments: readonly number[]): Promise<AnalyticsRow[]>;
  stats(): { cachedSegments: number; cachedEvents: number };
}

/**
 * Analytics over the embedded segments: each hourly segment is parsed once into columns (event-columns.ts) and
 * kept, up to `maxEvents` events in all (least recently used segments go first), so repeated dashboard queries
 * scan numbers instead of re-reading and re-parsing JSON lines. Appends keep cached segments current.
 */
export function createEventColumnCache(options: {
  maxEvents: number;
  /** Streams a segment's events from disk. */
  read(start: number, onEvent: (event: VerificationEvent) => void): Promise<void>;
}): EventColumnCache {
  const dictionary = new EventDictionary();
  // Map order is use order: a hit moves the segment to the end, eviction takes from the front.
  const cached = new Map<number, EventColumns>();
  let cachedEvents = 0;
  let tail: Promise<unknown> = Promise.resolve();

  function exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  }

  function evict(keep: number): void {
    for (const [start, columns] of cached) {
      if (cachedEvents <= options.maxEvents) return;
      if (start === keep) continue;
      cached.delete(start);
      cachedEvents -= columns.size;
    }
  }

  async function columnsOf(start: number): Promise<EventColumns> {
    const hit = cached.get(start);
    if (hit) {
      cached.delete(start);
      cached.set(start, hit);
      return hit;
    }
    return exclusive(async () => {
      const columns = cached.get(start) ?? new EventColumns(dictionary);
      if (!cached.has(start)) {
        await options.read(start, (event) => columns.push(event));
        cached.set(start, columns);
        cachedEvents += columns.size;
      }
      return columns;
    });
  }

  return {
    exclusive,
    appended(start, events) {
      const columns = cached.get(start);
      if (!columns) return;
      for (const event of events) columns.push(event);
      cachedEvents += events.length;
    },
    drop(start) {
      const columns = cached.get(start);
      if (!columns) return;
      cached.delete(start);
      cachedEvents -= columns.size;
    },
    async query(query, segments) {
      const aggregator = createColumnAggregator(query, dictionary);
      for (const start of segments) {
        const columns = await columnsOf(start);
        aggregator.add(columns);
        evict(start);
      }
      return aggregator.rows();
    },
    stats: () => ({ cachedSegments: cached.size, cachedEvents }),
  };
}
