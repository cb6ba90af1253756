import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { systemClock, type Clock } from "../../domain/clock.js";
import { createEventCounter } from "../event-aggregation.js";
import { createByteWriter } from "./byte-writer.js";
import { createEventColumnCache } from "./event-column-cache.js";
import { openLastUseFile, type LastUseFile } from "./last-use-file.js";
import { pacedLastUseWrites } from "../last-use.js";
import { createEventBatcher, type EventBatchingOptions, type EventStoreStats, type WriteOutcome } from "../event-batcher.js";
import { DEFAULT_MAX_STORED_EVENTS, type VerificationEvent, type VerificationEventStore } from "../ports/events.js";
import {
  SEGMENT_MS, countLines, createSegmentAppender, decodeEvent, encodeEvent, endsCleanly, parseSegmentFileName, readLines,
  segmentFileName, segmentStart, workspaceNeedle,
} from "./event-segments.js";

export interface EventRetention {
  /** Segments entirely older than this are deleted. Default 30 days. */
  maxAgeMs?: number;
  /** Past this many stored events the oldest segments are deleted (never the newest one). Default 10 million. */
  maxEvents?: number;
}

/** Most events analytics keeps parsed in memory (about 40 bytes each). Default 4 million. */
const DEFAULT_CACHED_EVENTS = 4_000_000;

export interface EmbeddedEventStore extends VerificationEventStore {
  stats(): EventStoreStats & { segments: number };
}

interface Segment {
  /** Events in the file; unknown for files found at start-up until retention first needs it. */
  count?: number;
  /** Known to end with a newline (or to be absent), so the next append starts a fresh line. */
  clean: boolean;
}

const DAY = 86_400_000;

/**
 * Events encoded and appended in one stretch of the event loop (the batcher's writeSize), which every request arriving
 * meanwhile waits out: 128 take about 0.15 ms, where a whole batch of 1,000 took 1.3 ms (REST verification at a fixed
 * load, CPU profile). Their text, ~25 KB, stays a young-generation string.
 */
const WRITE_SIZE = 128;

/** A stream that keeps no last-use times (trackLastUse: false). */
const NO_LAST_USE: LastUseFile = { note() {}, read: () => new Map(), persist: async () => {}, stats: () => ({ keys: 0, lines: 0 }) };

/**
 * Opens the embedded verification-event store: batches (event-batcher.ts) appended, WRITE_SIZE events per turn, to
 * hourly JSON-lines segments in `<dir>/events/`. Appends are synchronous but not fsynced (analytics, not
 * acknowledged writes; see createSegmentAppender) and never rewrite earlier bytes; a line torn by a
 * crash is terminated before the next append and skipped on read.
 * Retention runs at every flush: whole segments older than `maxAgeMs` go, then the oldest while more than
 * `maxEvents` events are stored.
 * Each key's last verification time is kept beside the segments (last-use-file.ts), written by the same flush.
 * The directory is the data directory, whose lock the document store holds; one process writes it.
 */
export async function createEmbeddedEventStore(
  options: {
    dir: string;
    retention?: EventRetention;
    clock?: Clock;
    maxCachedEvents?: number;
    /** Keep each key's last use (default). Off for rate-limit events, whose identifiers are unbounded. */
    trackLastUse?: boolean;
  } & EventBatchingOptions,
): Promise<EmbeddedEventStore> {
  const clock = options.clock ?? systemClock;
  const maxAgeMs = options.retention?.maxAgeMs ?? 30 * DAY;
  const maxEvents = options.retention?.maxEvents ?? DEFAULT_MAX_STORED_EVENTS;
  const eventsDir = join(options.dir, "events");
  await mkdir(eventsDir, { recursive: true });
  const segments = new Map<number, Segment>();
  for (const name of await readdir(eventsDir)) {
    const start = parseSegmentFileName(name);
    if (start !== undefined) segments.set(start, { clean: false });
  }
  const lastUse = options.trackLastUse === false ? NO_LAST_USE : await openLastUseFile(eventsDir);
  const pathOf = (start: number) => join(eventsDir, segmentFileName(start));
  const oldestFirst = () => [...segments.keys()].sort((a, b) => a - b);
  const columnCache = createEventColumnCache({
    maxEvents: options.maxCachedEvents ?? DEFAULT_CACHED_EVENTS,
    read: (start, onEvent) => readLines(pathOf(start), (line) => {
      const event = decodeEvent(line);
      if (event) onEvent(event);
    }),
  });

  const lastUseWrites = pacedLastUseWrites(() => lastUse.persist());
  const write = async (batch: VerificationEvent[]) => {
    const outcome = await columnCache.exclusive(() => writeBatch(batch));
    await lastUseWrites.betweenBatches();
    return outcome;
  };

  const appender = createSegmentAppender();
  // One batch is written at a time (the column cache's exclusive section), so one writer serves every append.
  const lines = createByteWriter();
  async function writeBatch(batch: VerificationEvent[]): Promise<WriteOutcome> {
    const groups = new Map<number, VerificationEvent[]>();
    for (const event of batch) {
      const start = segmentStart(event.time);
      const group = groups.get(start);
      if (group) group.push(event);
      else groups.set(start, [event]);
    }
    const retry: VerificationEvent[] = [];
    let dropped = 0;
    let error: unknown;
    for (const [start, events] of groups) {
      // Each line goes into the writer's bytes as it is made: no line outlives this loop or waits for the write.
      const written: VerificationEvent[] = [];
      lines.reset();
      for (const event of events) {
        let line: string;
        try {
          line = encodeEvent(event);
        } catch {
          dropped += 1; // not serialisable (e.g. a cycle): it could never be written
          continue;
        }
        lines.write(line);
        written.push(event);
      }
      if (written.length === 0) continue;
      const segment: Segment = segments.get(start) ?? { count: 0, clean: true };
      try {
        // A file left ending in a torn line (a failed append, a crash) gets its line ended first; that is rare.
        const clean = segment.clean || (await endsCleanly(pathOf(start)));
        await appender.append(pathOf(start), clean ? lines.bytes() : Buffer.concat([Buffer.from("\n"), lines.bytes()]));
        segment.clean = true;
        columnCache.appended(start, written);
        lastUse.note(written);
        if (segment.count !== undefined) segment.count += written.length + (clean ? 0 : 1);
        segments.set(start, segment);
      } catch (e) {
        // Part of the text may be on disk: the next append terminates it first, and retention recounts the file.
        segments.set(start, { clean: false });
        retry.push(...written);
        error = e;
      }
    }
    return { retry, dropped, error };
  }

  async function enforceRetention(): Promise<void> {
    const cutoff = clock.now() - maxAgeMs;
    for (const start of oldestFirst()) {
      if (start + SEGMENT_MS > cutoff) break;
      await remove(start);
    }
    if (segments.size <= 1) return;
    let total = 0;
    for (const [start, segment] of segments) {
      segment.count ??= await countLines(pathOf(start));
      total += segment.count;
    }
    for (const start of oldestFirst()) {
      if (total <= maxEvents || segments.size <= 1) break;
      total -= segments.get(start)!.count!;
      await remove(start);
    }
  }

  async function remove(start: number): Promise<void> {
    await appender.release(pathOf(start));
    await rm(pathOf(start), { force: true });
    segments.delete(start);
    columnCache.drop(start);
  }

  /** The last-use entries of this flush go to disk with it; retention runs whether or not that write failed. */
  async function afterFlush(): Promise<void> {
    let failure: unknown;
    await lastUseWrites.afterDrain().catch((error: unknown) => void (failure = error));
    await enforceRetention();
    if (failure !== undefined) throw failure;
  }

  const batcher = createEventBatcher({ ...options, writeSize: WRITE_SIZE, write, afterFlush });

  return {
    record: batcher.record,
    flush: batcher.flush,
    async close() {
      await batcher.close();
      await appender.close();
    },
    stats: () => ({ ...batcher.stats(), segments: segments.size }),
    async aggregate(query) {
      const counter = createEventCounter(query);
      const needle = workspaceNeedle(query.workspaceId);
      const overlapping = oldestFirst().filter((start) => start < query.until && start + SEGMENT_MS > query.since);
      for (const start of overlapping) {
        await readLines(pathOf(start), (line) => {
          if (!line.includes(needle)) return;
          const event = decodeEvent(line);
          if (event) counter.add(event);
        });
      }
      return counter.result();
    },
    lastUsed: async (workspaceId, keyIds) => lastUse.read(workspaceId, keyIds),
    query: (query) =>
      columnCache.query(query, oldestFirst().filter((start) => start < query.end && start + SEGMENT_MS > query.start)),
  };
}
