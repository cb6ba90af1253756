import { createEventBatcher, type EventBatchingOptions, type EventStoreStats } from "./event-batcher.js";
import { createEventCounter } from "./event-aggregation.js";
import { createColumnAggregator } from "./event-column-aggregator.js";
import { EventColumns, EventDictionary } from "./event-columns.js";
import { lastUseOf, mergeLastUse, type LastUse } from "./last-use.js";
import type { VerificationEvent, VerificationEventStore } from "./ports/events.js";

export interface MemoryEventStore extends VerificationEventStore {
  stats(): EventStoreStats;
}

/**
 * An event store that keeps events in process memory, for tests and tools that want no disk. It batches like the
 * durable adapters (so code under test sees the same timing), and keeps at most `maxEvents` (default 100 000),
 * forgetting the oldest.
 */
export function createMemoryEventStore(options: EventBatchingOptions & { maxEvents?: number } = {}): MemoryEventStore {
  const maxEvents = options.maxEvents ?? 100_000;
  let events: VerificationEvent[] = [];
  const lastUse = new Map<string, LastUse>();
  const batcher = createEventBatcher({
    ...options,
    async write(batch) {
      events.push(...batch);
      mergeLastUse(lastUse, batch);
      if (events.length > maxEvents) events = events.slice(events.length - maxEvents);
    },
  });
  return {
    record: batcher.record,
    flush: batcher.flush,
    close: batcher.close,
    stats: batcher.stats,
    async aggregate(query) {
      const counter = createEventCounter(query);
      for (const event of events) counter.add(event);
      return counter.result();
    },
    lastUsed: async (workspaceId, keyIds) => lastUseOf(lastUse, workspaceId, keyIds),
    async query(query) {
      const dictionary = new EventDictionary();
      const columns = new EventColumns(dictionary);
      for (const event of events) columns.push(event);
      const aggregator = createColumnAggregator(query, dictionary);
      aggregator.add(columns);
      return aggregator.rows();
    },
  };
}
