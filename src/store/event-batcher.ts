import { clearInterval, setImmediate, setInterval } from "node:timers";
import { nextTurn } from "../turn-end.js";
import { EventRing } from "./event-ring.js";
import type { VerificationEvent } from "./ports/events.js";

/** Counters an event store exposes beyond the port, for health pages and tests. */
export interface EventStoreStats {
  /** Events waiting in memory for the next write. */
  buffered: number;
  /** Events the backend accepted. */
  written: number;
  /** Events lost: buffer overflow, recorded after close, refused by the backend, or unwritten at close. */
  dropped: number;
  /** Writes that failed (their events were queued again, unless the backend refused them for good). */
  failedWrites: number;
  /** Message of the most recent write or maintenance failure. */
  lastError?: string;
}

export interface EventBatchingOptions {
  /** Events per write; a buffer this full triggers a write without waiting for the timer. Default 1000. */
  batchSize?: number;
  /** Period of the background flush. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Hard bound on buffered events; beyond it the oldest are dropped. Default 100 000. */
  maxBuffered?: number;
}

/** What a write did when it did not simply succeed: events to try again later, events lost for good. */
export interface WriteOutcome {
  retry?: VerificationEvent[];
  dropped?: number;
  error?: unknown;
}

export interface EventBatcher {
  record(event: VerificationEvent): void;
  flush(): Promise<void>;
  close(): Promise<void>;
  stats(): EventStoreStats;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The buffering shared by every event adapter: `record` only copies the event into a bounded columnar ring
 * (event-ring.ts: O(1), never awaits, never throws, keeps no reference to the event) and a single writer drains it in batches off the request path, on a timer, when a batch is full, or on
 * `flush()`. `write` throwing means nothing of the batch was stored: the batch goes back in front to be retried.
 * A drain writes what was buffered when it began, one `write` per event-loop turn; what arrives meanwhile waits for
 * the next drain.
 * While writes fail, only the timer retries, so a dead backend costs one attempt per interval, not one per batch.
 * `afterFlush` runs at the end of every drain (retention checks); its failures are recorded, never thrown.
 * Timers are unref'ed: a batcher never keeps a process alive. After `close()` events are dropped and counted.
 */
export function createEventBatcher(options: EventBatchingOptions & {
  /**
   * Events handed to one `write`, at most batchSize (the default). An adapter whose write runs on the event loop keeps
   * it small: a drain writes one per turn, and events leave the ring only as they are written, so they die young.
   */
  writeSize?: number;
  write(batch: VerificationEvent[]): Promise<WriteOutcome | void>;
  afterFlush?(): Promise<void>;
}): EventBatcher {
  const batchSize = Math.max(1, options.batchSize ?? 1000);
  const writeSize = Math.max(1, Math.min(batchSize, options.writeSize ?? batchSize));
  // Room for two batches at first: enough while writes keep up; it grows only while a backlog does.
  const ring = new EventRing(Math.max(batchSize, options.maxBuffered ?? 100_000), 2 * batchSize);
  const stats: Omit<EventStoreStats, "buffered"> = { written: 0, dropped: 0, failedWrites: 0 };
  let closed = false;
  let failing = false;
  let scheduled = false;
  let running: Promise<void> | undefined;
  const ignore = () => {};

  async function drain(): Promise<void> {
    let failure: unknown;
    // What is buffered now, not what arrives while it is written: under steady load a drain still ends (and
    // afterFlush runs) now that writes yield to the event loop.
    let left = ring.size;
    while (left > 0 && ring.size > 0) {
      const batch = ring.take(Math.min(writeSize, left));
      left -= batch.length;
      let outcome: WriteOutcome | void;
      try {
        outcome = await options.write(batch);
      } catch (error) {
        outcome = { retry: batch, error };
      }
      const retry = outcome?.retry ?? [];
      stats.dropped += outcome?.dropped ?? 0;
      stats.written += batch.length - retry.length - (outcome?.dropped ?? 0);
      if (outcome?.error !== undefined || retry.length > 0) {
        stats.failedWrites += 1;
        stats.lastError = messageOf(outcome?.error ?? "write failed");
        failure = outcome?.error ?? new Error(stats.lastError);
      }
      if (retry.length > 0) {
        stats.dropped += ring.unshift(retry);
        break; // the backend is failing: leave the rest for the next tick
      }
      // A write per turn: requests waiting meanwhile are served between the writes.
      if (left > 0) await nextTurn();
    }
    failing = failure !== undefined;
    if (options.afterFlush) {
      await options.afterFlush().catch((error: unknown) => {
        stats.lastError = messageOf(error);
      });
    }
    if (failure !== undefined) throw failure;
  }

  /** Starts the single writer, or joins the one already draining (it writes what was buffered when it began). */
  function pump(): Promise<void> {
    running ??= drain().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** Writes everything recorded before the call: the drain under way may have begun before some of it. */
  async function drainAll(): Promise<void> {
    await running?.catch(ignore);
    return pump();
  }

  const timer = setInterval(() => {
    if (!closed) pump().catch(ignore);
  }, options.flushIntervalMs ?? 1000);
  timer.unref();

  return {
    record(event) {
      try {
        if (closed || typeof event !== "object" || event === null) {
          stats.dropped += 1;
          return;
        }
        if (ring.push(event)) stats.dropped += 1;
        if (ring.size >= batchSize && !scheduled && !running && !failing) {
          scheduled = true;
          // Not inline: the write's serialisation would run on this request's stack.
          setImmediate(() => {
            scheduled = false;
            pump().catch(ignore);
          }).unref();
        }
      } catch {
        stats.dropped += 1;
      }
    },
    flush: drainAll,
    async close() {
      if (closed) return running?.catch(ignore);
      closed = true;
      clearInterval(timer);
      await drainAll().catch(ignore);
      // What the last attempt could not write is lost now; count it rather than keep it.
      stats.dropped += ring.take(ring.size).length;
    },
    stats: () => ({ ...stats, buffered: ring.size }),
  };
}
